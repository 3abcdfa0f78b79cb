// replay-bench: the benchmark's Swift programs. Each subcommand does one measured thing and
// prints one JSON object on standard output; bench/harness.py runs them and takes medians.
//
//   replay-bench split <log>                              the floor: memchr line split
//   replay-bench jsondecoder <log> [--limit n]            Foundation JSONDecoder per line
//   replay-bench import <source> <out> --chunk n [--limit n]
//   replay-bench raw-write <source> <out> --chunk n [--limit n]
//   replay-bench append <source> <out> --count n
//   replay-bench raw-append <source> <out> --count n
//   replay-bench nearest --points n --seed s [--write-points f] [--write-neighbors f] [--check m]
//   replay-bench subscribe <log> [--count n]             a LogSubscription's catch-up
//   replay-bench drop-cache <file>...                     the files' pages dropped from the
//                                                         page cache (Linux; for cold runs)
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The command line, as options and positional arguments.
struct Arguments {
  var positional: [String] = []
  var options: [String: String] = [:]

  init(_ arguments: some Sequence<String>) {
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
      if argument.hasPrefix("--") {
        options[argument] = iterator.next() ?? ""
      } else {
        positional.append(argument)
      }
    }
  }

  func int(_ name: String) -> Int? { options[name].flatMap { Int($0) } }

  func path(_ index: Int) throws -> String {
    guard index < positional.count else { throw BenchError("missing argument \(index + 1)") }
    return positional[index]
  }
}

struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Prints a result as one JSON object.
func report(_ fields: KeyValuePairs<String, any Sendable>) {
  let members = fields.map { key, value -> String in
    switch value {
    case let text as String: "\"\(key)\":\"\(text)\""
    case let number as Double: "\"\(key)\":\(number.isFinite ? String(number) : "null")"
    default: "\"\(key)\":\(value)"
    }
  }
  print("{" + members.joined(separator: ",") + "}")
}

/// Seconds `body` takes.
func measure(_ body: () throws -> Void) rethrows -> Double {
  let start = ContinuousClock.now
  try body()
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Asks the system to drop the cached pages of each file (`posix_fadvise` `DONTNEED`; they are
/// clean, so it can), so that the next process reads them from the disk. Missing files are
/// skipped; elsewhere than Linux it fails, and the harness leaves the cold rows out.
func dropCache(_ paths: [String]) throws {
  #if os(Linux)
    for path in paths {
      let descriptor = open(path, O_RDONLY)
      guard descriptor >= 0 else { continue }
      defer { close(descriptor) }
      let result = posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED)
      guard result == 0 else { throw BenchError("posix_fadvise \(path): \(result)") }
    }
  #else
    throw BenchError("drop-cache needs Linux's posix_fadvise")
  #endif
}

let commandLine = Array(CommandLine.arguments.dropFirst())
do {
  guard let command = commandLine.first else {
    throw BenchError(
      "usage: replay-bench split|jsondecoder|import|raw-write|append|raw-append|nearest|subscribe|drop-cache ..."
    )
  }
  let arguments = Arguments(commandLine.dropFirst())
  switch command {
  case "split": try LineSplit.run(arguments)
  case "jsondecoder": try NaiveDecoding.run(arguments)
  case "import": try WriteBenchmarks.importEvents(arguments)
  case "raw-write": try WriteBenchmarks.rawWrite(arguments)
  case "append": try WriteBenchmarks.append(arguments)
  case "raw-append": try WriteBenchmarks.rawAppend(arguments)
  case "nearest": try NearestBenchmark.run(arguments)
  case "subscribe": try SubscribeBenchmark.run(arguments)
  case "drop-cache": try dropCache(arguments.positional)
  default: throw BenchError("unknown subcommand '\(command)'")
  }
} catch {
  FileHandle.standardError.write(Data("replay-bench: \(error)\n".utf8))
  exit(1)
}
