import Events
import Foundation

/// Where an import reads from: a file, standard input, or an `http(s)` URL.
package enum ImportSource: Sendable, Equatable {
  /// A file.
  case file(path: String)
  /// Standard input (`-` on the command line).
  case standardInput
  /// An `http://` or `https://` URL, and the text it was given as.
  case url(URL, text: String)

  /// Reads a command-line argument: `-` is standard input, `http://` and `https://` are URLs,
  /// anything else without a `scheme://` prefix is a path.
  /// - Throws: `ImportError.unsupportedURL` for another scheme (`ftp://...`).
  public init(_ argument: String) throws(ImportError) {
    if argument == "-" {
      self = .standardInput
      return
    }
    guard let schemeEnd = argument.range(of: "://") else {
      self = .file(path: argument)
      return
    }
    let scheme = argument[..<schemeEnd.lowerBound].lowercased()
    guard scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
      self = .file(path: argument)
      return
    }
    guard scheme == "http" || scheme == "https", let url = URL(string: argument),
      url.host != nil
    else {
      throw ImportError.unsupportedURL(argument)
    }
    self = .url(url, text: argument)
  }

  /// The name events carry in their `source` field: the file's last path component, `stdin`,
  /// or the URL as given.
  public var name: String {
    switch self {
    case .file(let path):
      let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
      return trimmed.split(separator: "/").last.map(String.init) ?? path
    case .standardInput: return "stdin"
    case .url(_, let text): return text
    }
  }

  /// Whether the source is a URL.
  public var isRemote: Bool {
    if case .url = self { return true }
    return false
  }

  /// The source's bytes.
  /// - Parameter fetcher: how URLs are fetched.
  /// - Throws: `ImportError.fileNotFound`, `.isDirectory`, `.unreadable`, and the fetcher's
  ///   `.unreachable` and `.httpStatus`.
  public func read(with fetcher: HTTPFetcher = HTTPFetcher()) throws(ImportError) -> [UInt8] {
    switch self {
    case .standardInput:
      return Array(FileHandle.standardInput.readDataToEndOfFile())
    case .url(let url, let text):
      return try fetcher.fetch(url, text: text).body
    case .file(let path):
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw ImportError.fileNotFound(path: path)
      }
      guard !isDirectory.boolValue else { throw ImportError.isDirectory(path: path) }
      guard let data = FileManager.default.contents(atPath: path) else {
        throw ImportError.unreadable(path: path, reason: "permission denied or an I/O error")
      }
      return Array(data)
    }
  }
}
