import Logging
import NIOCore
import Testing

@testable import StorekeeperStore

/// What a caller is told when PostgreSQL fails under it: an unreachable server or a lost
/// connection is `unavailable` (a 503 with Retry-After), whatever error the channel raised.
@Suite("PostgreSQL errors")
struct PostgresErrorTests {
    static let logger = Logger(label: "test.postgres-errors")

    @Test("an error on a connection that closed under the operation means the database is unavailable")
    func lostConnection() {
        struct Odd: Error {}
        let lost = PostgresBackend.classify(Odd(), connectionClosed: true, logger: Self.logger)
        #expect((lost as? StoreError)?.code == .unavailable)
        let channel = PostgresBackend.classify(ChannelError.ioOnClosedChannel, connectionClosed: false, logger: Self.logger)
        #expect((channel as? StoreError)?.code == .unavailable)
        let io = PostgresBackend.classify(IOError(errnoCode: 104, reason: "read"), connectionClosed: false, logger: Self.logger)
        #expect((io as? StoreError)?.code == .unavailable)
    }

    @Test("an error before any connection was handed over (the pool gave up connecting) means the database is unavailable")
    func noConnection() {
        // PostgresNIO's pool fails the requests waiting for a connection with its own
        // `ConnectionPoolError` once creating connections has failed for a while.
        struct PoolGaveUp: Error {}
        let error = PostgresBackend.classify(PoolGaveUp(), connectionClosed: false, leased: false, logger: Self.logger)
        #expect((error as? StoreError)?.code == .unavailable)
        struct Refused: Error {}
        #expect(PostgresBackend.classify(Refused(), connectionClosed: false, leased: true, logger: Self.logger) is Refused)
    }

    @Test("a refused query, the caller's own error and a cancellation pass as they are")
    func otherErrors() {
        struct Refused: Error {}
        #expect(PostgresBackend.classify(Refused(), connectionClosed: false, logger: Self.logger) is Refused)
        let own = StoreError(code: .aliasConflict, message: "taken")
        #expect((PostgresBackend.classify(own, connectionClosed: true, logger: Self.logger) as? StoreError)?.code == .aliasConflict)
        #expect(PostgresBackend.classify(CancellationError(), connectionClosed: true, logger: Self.logger) is CancellationError)
    }
}
