import Foundation
import Glibc

/// A child process the tests start, talk to and stop, spawned with `posix_spawn` directly.
///
/// Foundation's `Process.run()` in Swift 6.3 on Linux reads past the end of glibc's `readdir`
/// buffer while it looks for the highest open descriptor, and now and then dies of it
/// (swift-corelibs-foundation #5472, fixed after 6.3). Its `FileHandle.readDataToEndOfFile()`
/// also traps on `EINTR`. The test bundle holds well over a thousand descriptors and starts
/// hundreds of children, so either would sooner or later take the whole run down; this type has
/// neither weakness. Every descriptor above standard error is closed in the child.
public final class ChildProcess: @unchecked Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe this object reads (output) or writes (input).
        case pipe
        /// The same descriptor as the test process's own.
        case inherit
        /// A file, appended to.
        case file(String)
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public var step: String
        public var code: Int32
        public var description: String { "\(step) failed: \(String(cString: strerror(code)))" }
    }

    public let processIdentifier: pid_t
    private let inputWriter: Int32?
    private let outputReader: Int32?
    private let errorReader: Int32?
    private let lock = NSLock()
    // Guarded by `lock`.
    private var status: Int32?
    private var inputClosed = false

    /// Starts `executable` with `arguments`. `environment` nil means the test process's own;
    /// `errorToOutput` sends standard error down the output stream.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        input: Stream = .null, output: Stream = .null, error: Stream = .null, errorToOutput: Bool = false
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        // The child starts with every signal at its default and none blocked: an ignored
        // SIGPIPE, say, would otherwise carry over into it.
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        func cleanUp() { for fd in parentEnds + childEnds { close(fd) } }
        func arrange(_ stream: Stream, onto target: Int32, childReads: Bool) throws -> Int32? {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", childReads ? O_RDONLY : O_WRONLY, 0)
                return nil
            case .inherit:
                return nil
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
                return nil
            case .pipe:
                var ends: [Int32] = [-1, -1]
                // No `pipe2` in Swift's Glibc; the window before FD_CLOEXEC is harmless, as
                // children spawned here close every inherited descriptor anyway.
                guard pipe(&ends) == 0 else { throw SpawnError(step: "pipe", code: errno) }
                for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
                let (parent, child) = childReads ? (ends[1], ends[0]) : (ends[0], ends[1])
                parentEnds.append(parent)
                childEnds.append(child)
                posix_spawn_file_actions_adddup2(&actions, child, target)
                return parent
            }
        }
        do {
            inputWriter = try arrange(input, onto: 0, childReads: true)
            outputReader = try arrange(output, onto: 1, childReads: false)
            if errorToOutput {
                posix_spawn_file_actions_adddup2(&actions, 1, 2)
                errorReader = nil
            } else {
                errorReader = try arrange(error, onto: 2, childReads: false)
            }
            if let directory {
                guard let addChdir = SpawnExtensions.addChdir else { throw SpawnError(step: "posix_spawn_file_actions_addchdir_np", code: ENOSYS) }
                let code = directory.withCString { addChdir(&actions, $0) }
                guard code == 0 else { throw SpawnError(step: "posix_spawn_file_actions_addchdir_np", code: code) }
            }
            guard let closeFrom = SpawnExtensions.closeFrom else { throw SpawnError(step: "posix_spawn_file_actions_addclosefrom_np", code: ENOSYS) }
            let code = closeFrom(&actions, 3)
            guard code == 0 else { throw SpawnError(step: "posix_spawn_file_actions_addclosefrom_np", code: code) }
        } catch {
            cleanUp()
            throw error
        }

        let argv = ([executable] + arguments).map { strdup($0) }
        let environmentPairs = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") }
        defer { for pointer in argv + environmentPairs { free(pointer) } }
        var pid = pid_t()
        let code = (argv + [nil]).withUnsafeBufferPointer { arguments in
            (environmentPairs + [nil]).withUnsafeBufferPointer { variables in
                posix_spawn(&pid, executable, &actions, &attributes, arguments.baseAddress!, variables.baseAddress!)
            }
        }
        for fd in childEnds { close(fd) }
        guard code == 0 else {
            for fd in parentEnds { close(fd) }
            throw SpawnError(step: "posix_spawn \(executable)", code: code)
        }
        processIdentifier = pid
    }

    /// What a child that ran to its end left behind.
    public struct Finished: Sendable {
        /// The exit code, or the number of the signal that ended it.
        public var status: Int32
        public var output: Data
        /// Empty unless standard error was a pipe.
        public var error: Data

        public var outputText: String { String(decoding: output, as: UTF8.self) }
        public var errorText: String { String(decoding: error, as: UTF8.self) }
    }

    /// Runs `executable` to its end with `input` on standard input (`/dev/null` when nil),
    /// capturing standard output (and standard error, when `error` is `.pipe`). Past `timeout`
    /// seconds the child gets SIGTERM.
    ///
    /// The wait happens on a thread of its own: a test blocking one of the concurrency pool's
    /// few threads for a child's whole run starves every other test's servers and clients.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        input: Data? = nil, error: Stream = .pipe, errorToOutput: Bool = false, timeout: TimeInterval? = nil
    ) async throws -> Finished {
        try await offThePool {
            try runWaiting(
                executable, arguments, environment: environment, directory: directory, input: input, error: error,
                errorToOutput: errorToOutput, timeout: timeout)
        }
    }

    /// ``run(_:_:environment:directory:input:error:errorToOutput:timeout:)`` blocking the calling
    /// thread, for callers that are not async and own their thread.
    public static func runWaiting(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        input: Data? = nil, error: Stream = .pipe, errorToOutput: Bool = false, timeout: TimeInterval? = nil
    ) throws -> Finished {
        let process = try ChildProcess(
            executable, arguments, environment: environment, directory: directory, input: input == nil ? .null : .pipe,
            output: .pipe, error: error, errorToOutput: errorToOutput)
        // Weak: a cancelled item stays queued until its deadline, and must not keep the pipes open till then.
        let watchdog = DispatchWorkItem { [weak process] in process?.terminate() }
        if let timeout { DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog) }
        defer { watchdog.cancel() }
        // Both pipes are drained at once, so a child filling one while the other is read cannot
        // block; input is written from a thread of its own for the same reason.
        let errorReader = InBackground { process.errorReader == nil ? Data() : process.readError() }
        if let input {
            _ = InBackground {
                process.write(input)
                process.closeInput()
                return Data()
            }
        }
        let output = process.readOutput()
        return Finished(status: process.terminationStatus, output: output, error: errorReader.wait())
    }

    deinit {
        // Standard input may have been closed already (``closeInput()``): closing its number
        // again would close whatever descriptor the process has opened under it since.
        let input = inputClosed ? nil : inputWriter
        for fd in [input, outputReader, errorReader].compactMap({ $0 }) { close(fd) }
    }

    // MARK: Streams

    /// Writes all of `data` to the child's standard input (a pipe). A child that has gone
    /// away is not an error here: its exit status tells.
    public func write(_ data: Data) {
        guard let fd = inputWriter else { preconditionFailure("standard input is not a pipe") }
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    /// Closes standard input, so the child reads its end.
    public func closeInput() {
        lock.withLock {
            guard let fd = inputWriter, !inputClosed else { return }
            inputClosed = true
            close(fd)
        }
    }

    /// Standard output up to its end (the child's exit, or its closing the stream).
    public func readOutput() -> Data { Self.readToEnd(outputReader, "standard output") }

    /// Standard error up to its end.
    public func readError() -> Data { Self.readToEnd(errorReader, "standard error") }

    /// Whatever standard output holds now, waiting for at least one byte; empty at its end.
    public func readOutputChunk() -> Data {
        guard let fd = outputReader else { preconditionFailure("standard output is not a pipe") }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            return Data(buffer.prefix(max(count, 0)))
        }
    }

    private static func readToEnd(_ fd: Int32?, _ name: String) -> Data {
        guard let fd else { preconditionFailure("\(name) is not a pipe") }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    // MARK: Life

    /// Whether the child has not exited yet.
    public var isRunning: Bool {
        lock.withLock {
            if status != nil { return false }
            var raw: Int32 = 0
            let result = waitpid(processIdentifier, &raw, WNOHANG)
            if result == processIdentifier { status = Self.decode(raw) }
            return status == nil
        }
    }

    /// Waits for the child to exit.
    public func waitUntilExit() {
        while lock.withLock({ status == nil }) {
            var raw: Int32 = 0
            let result = waitpid(processIdentifier, &raw, 0)
            if result == processIdentifier {
                lock.withLock { status = Self.decode(raw) }
            } else if result < 0, errno == ECHILD {
                // Another thread reaped it and is recording the status.
                usleep(1_000)
            }
        }
    }

    /// The exit code, or the number of the signal that ended the child. Waits for the exit.
    public var terminationStatus: Int32 {
        waitUntilExit()
        return lock.withLock { status! }
    }

    /// Sends SIGTERM, unless the child has already exited.
    public func terminate() { send(SIGTERM) }

    /// Sends SIGKILL, unless the child has already exited.
    public func kill() { send(SIGKILL) }

    private func send(_ number: Int32) {
        // Under the lock so the pid cannot be reaped (and reused) between the check and the signal.
        lock.withLock {
            guard status == nil else { return }
            _ = Glibc.kill(processIdentifier, number)
        }
    }

    private static func decode(_ raw: Int32) -> Int32 {
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : signal
    }
}

/// Runs `body`, which blocks (a child process, a pipe, `waitpid`), on a thread of its own and
/// awaits its answer. Blocking the concurrency pool instead holds one of its few threads (one
/// per core) and stalls the servers, clients and pools of every test running beside it.
public func offThePool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// ``offThePool(_:)`` for work that cannot fail.
public func offThePool<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

/// Work on a thread of its own, its answer waited for later.
private final class InBackground: @unchecked Sendable {
    // Safe: `data` is written once by the thread before `done` is signalled, and read only
    // after waiting on `done`.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Data) {
        Thread.detachNewThread { [self] in
            data = body()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

/// The glibc extensions Swift's Glibc module leaves out (they need `_GNU_SOURCE`), found at run time.
private enum SpawnExtensions {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let closeFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<Function>(_ name: String) -> Function? {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }
}
