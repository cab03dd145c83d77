import Foundation

/// Access kept after a period's end while the renewal that should follow is not confirmed
/// (no network, or Apple's data not fetched yet), as seed 002's app kept access 10 days.
///
/// It applies only to a subscription that expired for no known reason with auto-renew not
/// turned off: a voluntary cancellation, a billing failure, a refund or a revocation never
/// gets it.
public struct OfflineAllowance: Sendable, Hashable, Codable {
    /// How long after the period's end access is kept.
    public var duration: TimeInterval

    public init(duration: TimeInterval) {
        self.duration = duration
    }

    /// Ten days, as in seed 002.
    public static let tenDays = OfflineAllowance(duration: 10 * 86_400)
}
