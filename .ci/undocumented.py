#!/usr/bin/env python3
"""Lists public declarations without a `///` comment in the given folders; exits 1 if any.

Members that implement a documented protocol requirement (description, ==, encode(into:), the
requirements of our own protocols, ...) take their documentation from the protocol and are skipped."""
import re, sys, os
inherits = re.compile(r'\b(description|debugDescription|errorDescription|init\((arrayLiteral|stringLiteral|integerLiteral|from|rawValue)|encode\((into|to)|func ==|hash\(into|makeIterator|func next\(|makeAsyncIterator|var rawValue|func adapt\(|func retry\(|func handle\(|func redirect\(|func prepare\(|func process\(|func decode\(|func send\(|func cancelAll|func requestStarted|func responseReceived|func retryScheduled|func requestFailed|func circuitChanged|func report\(|func allowsInsecureRedirect|var interceptors|var monitors|var id\b|subscript|typealias (Element|AsyncIterator|Failure))')
count = 0
for root in sys.argv[1:]:
    for dp, _, files in os.walk(root):
        for f in files:
            if not f.endswith('.swift'): continue
            p = os.path.join(dp, f); lines = open(p).read().split('\n')
            for i, l in enumerate(lines):
                s = l.strip()
                if not re.match(r'^(@[A-Za-z]+(\([^)]*\))? )*(public|open) ', s): continue
                if s.startswith('public extension') : continue
                j = i - 1
                while j >= 0 and lines[j].strip().startswith('@'): j -= 1
                if j >= 0 and lines[j].strip().startswith('///'): continue
                if inherits.search(s): continue
                count += 1
                print(f'{p}:{i+1}: {s[:110]}')
sys.exit(1 if count else 0)
