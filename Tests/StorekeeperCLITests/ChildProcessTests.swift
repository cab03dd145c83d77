import Foundation
import StorekeeperTestSupport
import Testing

/// The tests' own process spawner (``ChildProcess``), which every suite that starts a child uses.
@Suite("Child processes the tests start")
struct ChildProcessTests {
    @Test("a child holds only its three standard streams, whatever the test bundle has open")
    func onlyStandardStreamsInherited() async throws {
        let held = try (0..<64).map { _ in try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/null")) }
        defer { for handle in held { try? handle.close() } }
        let finished = try await ChildProcess.run("/bin/sh", ["-c", "ls /proc/$$/fd"])
        #expect(finished.status == 0, "\(finished.errorText)")
        let descriptors = Set(finished.outputText.split(whereSeparator: \.isNewline).map(String.init))
        // `ls` itself may hold its directory open; the shell's own are 0, 1 and 2.
        #expect(descriptors.subtracting(["0", "1", "2"]).count <= 1, "\(descriptors.sorted())")
    }

    @Test("output larger than a pipe's buffer on both streams, input written while the child reads, exit code kept")
    func bothStreamsAndInput() async throws {
        let input = Data(repeating: UInt8(ascii: "a"), count: 300_000)
        let finished = try await ChildProcess.run("/bin/sh", ["-c", "cat; head -c 200000 /dev/zero >&2; exit 7"], input: input)
        #expect(finished.status == 7)
        #expect(finished.output == input)
        #expect(finished.error.count == 200_000)
    }

    @Test("a working directory, an environment of its own, and SIGKILL reported as the signal")
    func directoryEnvironmentAndSignal() async throws {
        let finished = try await ChildProcess.run("/bin/sh", ["-c", "pwd; echo $ONLY"], environment: ["ONLY": "this"], directory: "/tmp")
        #expect(finished.outputText == "/tmp\nthis\n")
        let sleeper = try ChildProcess("/bin/sleep", ["30"])
        #expect(sleeper.isRunning)
        sleeper.kill()
        #expect(sleeper.terminationStatus == SIGKILL)
        #expect(!sleeper.isRunning)
        sleeper.kill()  // after the exit: nothing to signal, no harm done
    }

    @Test("closing standard input early and releasing the child closes no descriptor twice")
    func noDoubleClose() throws {
        var process: ChildProcess? = try ChildProcess("/bin/cat", [], input: .pipe, output: .pipe)
        process?.closeInput()
        // The numbers freed by now (standard input's among them) are taken by the next files opened.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sk-child-\(UUID().uuidString)")
        try Data("kept".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let handles = try (0..<8).map { _ in try FileHandle(forReadingFrom: file) }
        defer { for handle in handles { try? handle.close() } }
        #expect(process?.readOutput() == Data())
        process?.waitUntilExit()
        process = nil
        for handle in handles {
            #expect(fcntl(handle.fileDescriptor, F_GETFD) != -1, "descriptor \(handle.fileDescriptor) was closed with the child")
        }
    }

    @Test("a child that cannot start is a thrown error, not a crash")
    func missingExecutable() {
        #expect(throws: ChildProcess.SpawnError.self) { try ChildProcess("/nonexistent/tool", []) }
    }
}
