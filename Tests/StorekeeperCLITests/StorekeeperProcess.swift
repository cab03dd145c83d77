import Foundation
import StorekeeperTestSupport

/// Runs the built `storekeeper` executable as a newcomer would, capturing its output.
struct StorekeeperProcess {
    struct Output {
        var exitCode: Int32
        var standardOutput: Data
        var standardError: String

        var text: String { String(decoding: standardOutput, as: UTF8.self) }

        /// The standard output parsed as a JSON object.
        func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: standardOutput) as? [String: Any] else {
                throw NotAnObject(text: text)
            }
            return object
        }
    }

    struct NotAnObject: Error, CustomStringConvertible {
        var text: String
        var description: String { "standard output is not a JSON object: \(text.prefix(500))" }
    }

    /// The executable SwiftPM built next to the test bundle.
    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // On macOS the test binary lives inside an .xctest bundle.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS" || directory.lastPathComponent == "Contents" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("storekeeper")
    }

    /// Runs `storekeeper arguments…` in `directory` with `input` on standard input (none when
    /// nil), stopping it after `timeout` seconds.
    static func run(_ arguments: [String], in directory: URL? = nil, input: String? = nil, timeout: TimeInterval = 120) async throws -> Output {
        let finished = try await ChildProcess.run(
            executable.path, arguments, directory: directory?.path, input: input.map { Data($0.utf8) }, timeout: timeout)
        return Output(exitCode: finished.status, standardOutput: finished.output, standardError: finished.errorText)
    }
}

/// A fresh temporary directory, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
