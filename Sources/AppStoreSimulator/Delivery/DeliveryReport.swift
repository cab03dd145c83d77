import Foundation

/// What a round of notification delivery did, or (as ``NotificationDelivery/totals``) what
/// delivery has done since it started.
///
/// V2 and V1 posts are counted together. "Lost" counts attempts that never reached the
/// server but that Apple's history records as failed; "dropped" counts notifications chosen
/// to be lost entirely (every one of their attempts is lost).
public struct DeliveryReport: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Notifications whose first attempt was made.
    public var notifications: Int
    /// Attempts made, as Apple's history records them (duplicates not included).
    public var attempts: Int
    /// Attempts the server answered with HTTP 200–206.
    public var successes: Int
    /// Attempts that failed, lost ones included.
    public var failures: Int
    /// Attempts that never reached the server (of dropped notifications, or lost on the way).
    public var lost: Int
    /// Notifications lost entirely (counted at their first attempt).
    public var dropped: Int
    /// Duplicate posts of notifications that had already been delivered.
    public var duplicatesSent: Int
    /// Retries scheduled after failed attempts.
    public var retriesScheduled: Int
    /// Notifications given up after their last attempt failed.
    public var abandoned: Int

    /// A report; every count is zero by default.
    public init(
        notifications: Int = 0, attempts: Int = 0, successes: Int = 0, failures: Int = 0, lost: Int = 0,
        dropped: Int = 0, duplicatesSent: Int = 0, retriesScheduled: Int = 0, abandoned: Int = 0
    ) {
        self.notifications = notifications
        self.attempts = attempts
        self.successes = successes
        self.failures = failures
        self.lost = lost
        self.dropped = dropped
        self.duplicatesSent = duplicatesSent
        self.retriesScheduled = retriesScheduled
        self.abandoned = abandoned
    }

    /// Whether nothing happened.
    public var isEmpty: Bool { self == DeliveryReport() }

    /// Adds another report's counts to this one.
    public mutating func add(_ other: DeliveryReport) {
        notifications += other.notifications
        attempts += other.attempts
        successes += other.successes
        failures += other.failures
        lost += other.lost
        dropped += other.dropped
        duplicatesSent += other.duplicatesSent
        retriesScheduled += other.retriesScheduled
        abandoned += other.abandoned
    }

    /// The sum of two reports.
    public static func + (lhs: DeliveryReport, rhs: DeliveryReport) -> DeliveryReport {
        var sum = lhs
        sum.add(rhs)
        return sum
    }

    /// One line for a progress display, e.g.
    /// `notifications: 14,210 sent, 2,842 lost, 1,421 duplicated, 312 retried`.
    public var description: String {
        "notifications: \(Self.grouped(notifications)) sent, \(Self.grouped(dropped)) lost, "
            + "\(Self.grouped(duplicatesSent)) duplicated, \(Self.grouped(retriesScheduled)) retried"
    }

    /// `14210` as `14,210`, the same on every machine whatever its locale.
    private static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }
}
