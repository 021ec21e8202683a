// Writes the cases of http-tests/cache-tests (https://github.com/http-tests/cache-tests,
// BSD-3-Clause, © Mark Nottingham) that a private client cache is graded on as plain data,
// cache-tests.json, which CacheTestsSuiteTests runs against Connect's cache. Templates are
// expanded; dates stay numbers (seconds from the server's now), as the suite's server reads them.
//
//   git clone https://github.com/http-tests/cache-tests /tmp/cache-tests
//   node Tests/ConnectTests/Cache/CacheTestsSuite/export.mjs /tmp/cache-tests \
//     > Tests/ConnectTests/Cache/CacheTestsSuite/cache-tests.json
//
// A third argument names the commit when the checkout has no .git.
import { pathToFileURL } from 'node:url'
import { join } from 'node:path'
import { execSync } from 'node:child_process'

const root = process.argv[2]
const suites = (await import(pathToFileURL(join(root, 'tests/index.mjs')).href)).default
let commit = process.argv[3] || 'unknown'
try { commit = execSync('git rev-parse HEAD', { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() } catch {}

const cases = []
for (const suite of suites) {
  for (const test of suite.tests) {
    cases.push({
      suite: suite.id,
      id: test.id,
      name: test.name,
      kind: test.kind || 'required',
      browser_only: test.browser_only === true,
      browser_skip: test.browser_skip === true,
      cdn_only: test.cdn_only === true,
      depends_on: test.depends_on || [],
      requests: test.requests
    })
  }
}
process.stdout.write(JSON.stringify({
  source: 'https://github.com/http-tests/cache-tests',
  commit,
  license: 'BSD-3-Clause, Copyright (c) 2018, Mark Nottingham',
  cases
}, null, 1) + '\n')
