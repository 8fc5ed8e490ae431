// A socket's messages, close codes and failures are this module's vocabulary too: one import gives them.
@_exported import RestingWebSocketCore
