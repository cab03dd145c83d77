import Foundation
import Testing

extension Tag {
    /// A suite that runs for minutes or loads the machine: child servers and demos, a browser,
    /// kill storms, crashes, database outages and full disks, benchmarks, Apple's Python client.
    @Tag public static var slow: Self
}

/// Leaves the slow suites out of a local run: `STOREKEEPER_SKIP_SLOW=1 swift test`.
///
/// Swift 6.3's `swift test` takes no tag filter (`--skip tag:slow` is read as a test name), so
/// the suites tagged ``Testing/Tag/slow`` also carry ``Testing/Trait/skippedWhenFast``, which
/// reads this variable. CI never sets it and runs every suite.
public enum SlowTests {
    /// The environment variable that skips the slow suites when it is `1`.
    public static let variable = "STOREKEEPER_SKIP_SLOW"

    /// Whether this run leaves the slow suites out.
    public static var skipped: Bool { ProcessInfo.processInfo.environment[variable] == "1" }
}

extension Trait where Self == ConditionTrait {
    /// Skips the suite when `STOREKEEPER_SKIP_SLOW=1` (``SlowTests``); put it beside
    /// `.tags(.slow)`.
    public static var skippedWhenFast: Self {
        .disabled(if: SlowTests.skipped, "slow: STOREKEEPER_SKIP_SLOW=1 leaves it out")
    }
}
