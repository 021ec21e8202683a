// Every request answers with a `Future` of ConnectFutures and is chained with its operators
// (`decoded(toType:)`, `observe`, `value`), so an app that imports Connect has them without a
// second import.
@_exported import ConnectFutures
