import AppStoreModels
import Foundation

/// When Apple tries a notification again after a failed attempt.
///
/// Apple's documented behaviour (see APPLE.md, "Delivery and retries"): in production, V2
/// notifications are retried 5 times, 1, 12, 24, 48 and 72 hours after the previous attempt
/// (6 attempts in all); V1 notifications 3 times, 6, 24 and 48 hours after the previous one.
/// In the sandbox there is a single attempt and no retry.
public struct NotificationRetrySchedule: Sendable, Hashable, Codable {
    /// The wait before each retry, measured from the previous attempt; retry `n` (1-based)
    /// waits `intervals[n - 1]` seconds. Its count is the number of retries.
    public var intervals: [TimeInterval]

    /// A schedule with these waits between attempts.
    public init(intervals: [TimeInterval]) {
        self.intervals = intervals
    }

    private static let hour: TimeInterval = 3600

    /// Production V2: retries 1, 12, 24, 48 and 72 hours after the previous attempt.
    public static let productionV2 = NotificationRetrySchedule(intervals: [1, 12, 24, 48, 72].map { $0 * hour })

    /// Production V1: retries 6, 24 and 48 hours after the previous attempt.
    public static let productionV1 = NotificationRetrySchedule(intervals: [6, 24, 48].map { $0 * hour })

    /// One attempt and no retry, as in the sandbox.
    public static let singleAttempt = NotificationRetrySchedule(intervals: [])

    /// Apple's schedule for a channel in an environment: a single attempt in the sandbox,
    /// the production schedule everywhere else.
    public static func apple(channel: DeliveryChannel, environment: AppStoreEnvironment) -> NotificationRetrySchedule {
        if environment == .sandbox { return .singleAttempt }
        switch channel {
        case .v2: return .productionV2
        case .v1: return .productionV1
        }
    }

    /// How many attempts a notification gets at most (the first one and every retry).
    public var maximumAttempts: Int { intervals.count + 1 }

    /// When the attempt after attempt number `attempt` (0 for the first) happens, given that
    /// attempt's date; nil when the schedule has no more retries.
    public func retryDate(afterAttempt attempt: Int, at date: Date) -> Date? {
        guard attempt >= 0, attempt < intervals.count else { return nil }
        return date.addingTimeInterval(intervals[attempt])
    }
}
