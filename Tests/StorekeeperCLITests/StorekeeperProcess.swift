import Foundation

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
    /// nil), killing it after `timeout` seconds.
    static func run(_ arguments: [String], in directory: URL? = nil, input: String? = nil, timeout: TimeInterval = 120) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let inputPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
        try process.run()
        if let input {
            inputPipe.fileHandleForWriting.write(Data(input.utf8))
            try inputPipe.fileHandleForWriting.close()
        }
        let deadline = DispatchTime.now() + timeout
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: deadline, execute: watchdog)
        let errorReader = BackgroundRead(errors.fileHandleForReading)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errorReader.wait()
        process.waitUntilExit()
        watchdog.cancel()
        return Output(exitCode: process.terminationStatus, standardOutput: outputData, standardError: String(decoding: errorData, as: UTF8.self))
    }
}

/// Reads a pipe to its end on another thread, so a chatty child cannot fill both pipes.
private final class BackgroundRead: @unchecked Sendable {
    // Safe: `data` is written once by the reading thread before `done` is signalled, and read
    // only after waiting on `done`.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread {
            self.data = handle.readDataToEndOfFile()
            self.done.signal()
        }.start()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

/// A fresh temporary directory, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
