import Foundation
import Logging
import ServiceLifecycle
import StorekeeperStore

/// Deletes rejected and duplicate inbox rows once they are older than the retention period,
/// every hour, a thousand rows at a time, so the inbox cannot grow without bound. Processed
/// rows stay (they are the record of what Apple said); failed rows stay until an operator
/// retries them.
public struct InboxRetention: Service {
    package let store: any NotificationInbox
    package let clock: @Sendable () -> Date
    package let logger: Logger
    package let retentionDays: Double
    /// How often to look, in seconds.
    package var interval: Double = 3600

    /// The states whose rows are deleted when old.
    package static let purgedStates: Set<InboxState> = [.rejected, .duplicate]

    public init(store: any NotificationInbox, clock: @escaping @Sendable () -> Date, logger: Logger, retentionDays: Double) {
        self.store = store
        self.clock = clock
        self.logger = logger
        self.retentionDays = retentionDays
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await purge()
                    if removed > 0 { logger.info("inbox retention removed old rows", metadata: ["rows": "\(removed)"]) }
                } catch {
                    logger.warning("inbox retention failed; trying again later", metadata: ["error": "\(InboxText.summary(of: error))"])
                }
                try? await Task.sleep(for: .seconds(interval))
            }
        }
    }

    /// Deletes every old rejected and duplicate row now; returns how many went.
    @discardableResult
    public func purge() async throws -> Int {
        let cutoff = clock().addingTimeInterval(-retentionDays * 86_400)
        var total = 0
        while !Task.isCancelled {
            let removed = try await store.purgeNotifications(states: Self.purgedStates, receivedBefore: cutoff, limit: 1000)
            total += removed
            if removed < 1000 { break }
        }
        return total
    }
}
