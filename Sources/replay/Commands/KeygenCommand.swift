import Engine
import Events
import Foundation

/// `replay keygen`: a new Ed25519 key pair for signing tree heads.
enum KeygenCommand {
  static let command = Command(
    name: "keygen",
    abstract: "Make an Ed25519 key pair for signing tree heads ('replay head --sign').",
    discussion: """
      Writes the private key to a new file (mode 0600; an existing file is never \
      overwritten) as PRIVATE+KEY+<name>+<hash>+<base64>, and prints the verifier key, \
      <name>+<hash>+<base64>, which auditors pass to 'replay check' and 'replay verify' as \
      --key. The formats are Go's signed-note formats (golang.org/x/mod/sumdb/note).
      """,
    options: [name, output],
    run: run)

  static let name = TextOption(
    names: ["--name"], valueName: "name",
    help: "The key's name: no spaces and no '+' (e.g. audit.example.com).", isRequired: true)
  static let output = TextOption(
    names: ["--output"], valueName: "file", help: "The private key file to create.",
    isRequired: true)

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let name = invocation.requiredValue(KeygenCommand.name)
    let output = invocation.requiredValue(KeygenCommand.output)
    let signer: SignedNote.Signer
    do {
      signer = try SignedNote.Signer.generate(name: name)
    } catch let error as TreeError {
      throw UsageError(error.description)
    }
    do {
      try signer.writePrivateKey(to: output)
    } catch {
      if case .io(_, _, let code) = error, code == EEXIST {
        throw ExportError.cannotCreateOutput(
          path: output, reason: "it exists, and a key file is never overwritten")
      }
      throw ExportError.cannotCreateOutput(path: output, reason: "\(error)")
    }
    invocation.terminal.write(signer.verifierKey + "\n")
    return .success
  }
}
