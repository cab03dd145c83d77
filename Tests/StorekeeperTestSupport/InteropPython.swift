import Foundation
import Testing

/// The Python interpreter with Apple's `app-store-server-library` that interop tests use as the
/// reference implementation.
///
/// Resolution: `$STOREKEEPER_PYTHON` when set; otherwise `Scripts/interop-python.sh` creates (once)
/// a throwaway virtual environment under `.build/interop-venv` and installs the library from
/// PyPI. Without either, interop tests are skipped with a message, unless
/// `STOREKEEPER_REQUIRE_INTEROP=1` (CI sets it), which makes them fail instead.
public enum InteropPython {
    /// The interpreter's path, or `nil` when none could be found or made.
    public static let interpreter: String? = resolve()

    /// Whether interop tests must run (and fail when no interpreter is available).
    public static var isRequired: Bool {
        ProcessInfo.processInfo.environment["STOREKEEPER_REQUIRE_INTEROP"] == "1"
    }

    /// Use as `@Test(.enabled(if: InteropPython.shouldRun, InteropPython.skipMessage))`.
    public static var shouldRun: Bool { isRequired || interpreter != nil }

    public static let skipMessage: Comment =
        "Apple's Python library is unavailable: set STOREKEEPER_PYTHON, or let Scripts/interop-python.sh reach PyPI"

    /// The interpreter, or an error that fails the test when none is available.
    public static func require() throws -> String {
        guard let interpreter else { throw Unavailable() }
        return interpreter
    }

    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String {
            "STOREKEEPER_REQUIRE_INTEROP=1 but no Python with app-store-server-library: set STOREKEEPER_PYTHON or fix Scripts/interop-python.sh"
        }
    }

    /// The repository's root, found from this file's location.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // StorekeeperTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    private static func resolve() -> String? {
        if let configured = ProcessInfo.processInfo.environment["STOREKEEPER_PYTHON"], !configured.isEmpty {
            return FileManager.default.isExecutableFile(atPath: configured) ? configured : nil
        }
        let script = repositoryRoot.appendingPathComponent("Scripts/interop-python.sh")
        guard FileManager.default.fileExists(atPath: script.path) else { return nil }
        guard let finished = try? ChildProcess.runWaiting("/bin/bash", [script.path], error: .inherit), finished.status == 0 else {
            return nil
        }
        let data = finished.output
        let path = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}
