/// What the population did during one ``PopulationSimulator/advance(to:)``.
public struct LifecycleOutput: Sendable {
    /// The notifications Apple sends, in the order they happened (already in the store's history).
    public var notifications: [NotificationRecord] = []
    /// Purchases the customers' devices report to the app's server (StoreKit 2 transactions).
    public var purchases: [DevicePurchase] = []
    /// Cancellation sheets opened, waiting for the app's answer
    /// (``PopulationSimulator/resolveRetention(_:answer:decision:)``). When there is one,
    /// ``PopulationSimulator/advance(to:)`` stops right after it, before any later event.
    public var retentionRequests: [RetentionRequest] = []

    public init() {}
}
