// A transport's configuration names its connection options: whoever configures one has them without a second import.
@_exported import RestingConnections
