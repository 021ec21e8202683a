// Every request answers with a `Future` of ConnectFutures, chained with its operators (`observe`,
// `value`) and ConnectJSON's `decoded(toType:)`; a body can be written by ConnectJSON's
// `JSONWritable`. An app that imports Connect has them all without a second import.
@_exported import ConnectFutures
@_exported import ConnectJSON
