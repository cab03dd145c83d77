import Foundation

/// How often the scheduler looks for due jobs and plans its periodic sweeps.
public struct SchedulerConfiguration: Sendable, Codable, Hashable {
    /// How long to wait between passes when nothing is due (seconds).
    public var pollIntervalSeconds: Double
    /// How many jobs to lease at once.
    public var batchSize: Int
    /// How long a lease lasts; a job whose owner died is run again after it (seconds).
    public var leaseSeconds: Double
    /// Attempts before a job fails for good.
    public var maximumAttempts: Int
    /// The notification-history sweep's period (seconds; Apple keeps 180 days of history).
    public var notificationSweepSeconds: Double
    /// How much each sweep window overlaps the previous one (seconds), for late deliveries.
    public var sweepOverlapSeconds: Double
    /// The refund sweep's period (seconds; default 30 days): a pass through the notification
    /// history's `REFUND`, `REVOKE` and `REFUND_REVERSED` notifications of the period, delivered
    /// or not, replayed through the inbox (which drops the ones it has). A backstop: the hourly
    /// sweep already recovers every such notification Apple failed to deliver.
    public var refundSweepSeconds: Double
    /// How often to plan looks for chains that have none (seconds).
    public var planSeconds: Double
    /// How long after a `CONSUMPTION_REQUEST` Apple accepts an answer (seconds; Apple: 12 hours).
    public var consumptionWindowSeconds: Double
    /// How long after the notification-history sweep that covers a look's instant the look runs,
    /// so the notifications the sweep replayed are processed first (seconds).
    public var historySettleSeconds: Double
    /// How long past its instant a look waits for the notification history to be swept and
    /// processed before it asks Apple anyway (seconds; sweeps failing or far behind).
    public var historyWaitSeconds: Double

    public init(
        pollIntervalSeconds: Double = 5, batchSize: Int = 16, leaseSeconds: Double = 120, maximumAttempts: Int = 8,
        notificationSweepSeconds: Double = 3_600, sweepOverlapSeconds: Double = 600, refundSweepSeconds: Double = 30 * 86_400,
        planSeconds: Double = 3_600, consumptionWindowSeconds: Double = 12 * 3_600, historySettleSeconds: Double = 600,
        historyWaitSeconds: Double = 12 * 3_600
    ) {
        self.pollIntervalSeconds = pollIntervalSeconds
        self.batchSize = batchSize
        self.leaseSeconds = leaseSeconds
        self.maximumAttempts = maximumAttempts
        self.notificationSweepSeconds = notificationSweepSeconds
        self.sweepOverlapSeconds = sweepOverlapSeconds
        self.refundSweepSeconds = refundSweepSeconds
        self.planSeconds = planSeconds
        self.consumptionWindowSeconds = consumptionWindowSeconds
        self.historySettleSeconds = historySettleSeconds
        self.historyWaitSeconds = historyWaitSeconds
    }
}
