import Foundation
import StorekeeperTestSupport

/// Runs Apple's Python App Store Server Library (and PyJWT) to cross-check signatures.
///
/// The interpreter is the interop tests' one (``InteropPython``): tests that need it are
/// skipped without it, and fail without it when `STOREKEEPER_REQUIRE_INTEROP=1` (CI).
enum PythonCrossCheck {
    /// The interpreter with Apple's library (which brings PyJWT and cryptography).
    static var interpreter: String? { InteropPython.interpreter }

    struct Output {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `script` with `arguments` (as `sys.argv[1:]`) and returns its trimmed standard output;
    /// throws with standard error when it fails.
    static func output(_ script: String, _ arguments: [String]) throws -> String {
        let interpreter = try InteropPython.require()
        let result = try run(interpreter, script: script, arguments: arguments)
        guard result.status == 0 else { throw Failed(description: "python failed: \(result.standardError)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func run(_ interpreter: String, script: String, arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: interpreter)
        process.arguments = ["-c", script] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errorData = ReadInBackground(errors.fileHandleForReading)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData.wait(), as: UTF8.self))
    }
}

/// Reads a pipe to its end on another thread, so a child filling both pipes cannot block.
private final class ReadInBackground: @unchecked Sendable {
    // Safety: `data` is written once by the reading thread before `done` is signalled and read
    // only after waiting on `done`.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
