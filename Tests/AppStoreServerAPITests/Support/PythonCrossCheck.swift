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
    static func output(_ script: String, _ arguments: [String]) async throws -> String {
        let interpreter = try InteropPython.require()
        let result = try await run(interpreter, script: script, arguments: arguments)
        guard result.status == 0 else { throw Failed(description: "python failed: \(result.standardError)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func run(_ interpreter: String, script: String, arguments: [String]) async throws -> Output {
        let finished = try await ChildProcess.run(interpreter, ["-c", script] + arguments)
        return Output(status: finished.status, standardOutput: finished.outputText, standardError: finished.errorText)
    }
}
