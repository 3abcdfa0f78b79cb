// One import for an app: `import Engine` brings the event vocabulary (`Events`) and the read
// models (`Projections`) with it, so an app depends on the one product `Engine`. The other two
// products stay for tools that need only them (the fuzzers link `Events` alone).
@_exported import Events
@_exported import Projections
