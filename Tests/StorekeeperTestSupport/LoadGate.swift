import Testing

/// Keeps timing-bound suites apart from the suites that load the machine.
///
/// `swift test` runs every suite of every test target in one process, and Swift Testing runs
/// them in parallel; `.serialized` orders tests only within one suite. On two busy cores a
/// browser, a kill storm or a PostgreSQL outage next door stretched a server's answer past a
/// timing-bound test's limits. The rule for every suite:
///
/// - **`.timingBound`**: its assertions depend on how soon something happens (a server's
///   timeout firing, a deadline, a count of things done in time, a client giving up). It runs
///   alone among the gated suites: no heavy suite and no other timing-bound suite beside it.
/// - **`.heavyLoad`**: it loads the machine for long (a browser, child servers or demos, kill
///   storms, database outages and faults, benchmarks). Any number run together, never beside a
///   timing-bound suite.
/// - Neither: everything else, run whenever Swift Testing likes.
///
/// The gate narrows the crowd but does not empty it (ungated suites still run beside a
/// timing-bound one), so a timing-bound test still derives its bounds from what it measures or
/// waits for conditions with generous limits; the gate keeps the worst neighbours away.
///
/// Put the trait on the suite (`@Suite("…", .timingBound)`); a scope already inside the gate
/// passes straight through, so a nested trait never waits on its own suite.
public struct LoadGate: SuiteTrait, TestTrait, TestScoping {
    /// How a suite holds the gate.
    public enum Access: Sendable {
        /// Any number at once, never beside an exclusive holder.
        case shared
        /// Alone.
        case exclusive
    }

    /// How this trait's suite holds the gate.
    public let access: Access

    /// Whether the current task already runs inside the gate.
    @TaskLocal static var isInside = false

    static let lock = ReadersWriterLock()

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if Self.isInside { return try await function() }
        await Self.lock.acquire(access)
        defer { Self.lock.release(access) }
        try await Self.$isInside.withValue(true) { try await function() }
    }
}

extension SuiteTrait where Self == LoadGate {
    /// A suite whose assertions depend on timing: it runs with no heavy or other timing-bound
    /// suite beside it (see ``LoadGate``).
    public static var timingBound: Self { LoadGate(access: .exclusive) }

    /// A suite that loads the machine for long: it never runs beside a timing-bound suite (see
    /// ``LoadGate``).
    public static var heavyLoad: Self { LoadGate(access: .shared) }
}
