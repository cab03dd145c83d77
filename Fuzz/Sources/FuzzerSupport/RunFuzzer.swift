import Foundation
import FuzzerDriver

/// libFuzzer's callback type: one input's bytes; returns 0.
public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

/// The target's callback, set once by ``runFuzzer(_:)`` before libFuzzer starts.
nonisolated(unsafe) private var testOneInput: FuzzCallback?

/// libFuzzer's runtime links its own `main`, which needs this symbol even though the driver is
/// started from Swift's `main` with the callback passed explicitly.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    testOneInput?(bytes, count) ?? 0
}

/// Runs libFuzzer with the process's arguments over `callback`, then exits with its status.
public func runFuzzer(_ callback: FuzzCallback) -> Never {
    testOneInput = callback
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
}
