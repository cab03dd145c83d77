import Foundation
import Logging
import ServiceLifecycle
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore

/// Removes the rows of the tables that grow with every notification once they are older than
/// their retention (``RetentionConfiguration``): every hour, each table in passes of a
/// thousand rows, each pass a transaction of its own, until a pass finds nothing more to
/// remove. Replicas may all run it: their passes take turns.
public struct TableRetention: Service {
    package let store: any RetentionStore
    package let configuration: RetentionConfiguration
    package let clock: @Sendable () -> Date
    package let logger: Logger
    /// How often to look, in seconds.
    package var interval: Double = 3600
    /// Rows per pass.
    package var batch = 1000

    public init(store: any RetentionStore, configuration: RetentionConfiguration, clock: @escaping @Sendable () -> Date, logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await prune()
                    if !removed.isEmpty {
                        logger.info(
                            "retention removed old rows",
                            metadata: Logger.Metadata(uniqueKeysWithValues: removed.map { ($0.key.rawValue, "\($0.value)") }))
                    }
                } catch {
                    logger.warning("retention failed; trying again later", metadata: ["error": "\(InboxText.summary(of: error))"])
                }
                try? await Task.sleep(for: .seconds(interval))
            }
        }
    }

    /// How many days `table` keeps its rows (`nil`: for good).
    package func days(_ table: RetentionTable) -> Double? {
        switch table {
        case .events: configuration.eventsDays
        case .deliveries: configuration.deliveriesDays
        case .deliveryAttempts: configuration.deliveryAttemptsDays
        case .inboxBodies: configuration.inboxBodiesDays
        case .audit: configuration.auditDays
        }
    }

    /// Removes every row that has outlived its table's retention now; returns how many went,
    /// by table (tables that lost none are absent).
    @discardableResult
    public func prune() async throws -> [RetentionTable: Int] {
        let now = clock()
        var removed: [RetentionTable: Int] = [:]
        for table in RetentionTable.allCases {
            guard let days = days(table) else { continue }
            let cutoff = now.addingTimeInterval(-days * 86_400)
            while !Task.isCancelled {
                let pass = try await store.pruneRows(table, before: cutoff, limit: batch)
                if pass.removed > 0 { removed[table, default: 0] += pass.removed }
                if pass.finished { break }
            }
        }
        return removed
    }
}
