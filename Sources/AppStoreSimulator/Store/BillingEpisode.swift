import Foundation

/// One failed renewal of a subscription as the simulated App Store lived it: from the renewal
/// that could not be charged, through the grace period (when the app has one) and the billing
/// retry, to the charge going through or Apple giving up.
public struct BillingEpisode: Sendable, Hashable, Codable {
    /// When the renewal was due (the end of the period that was not renewed).
    public var due: Date
    /// The end of the grace period, when the app has one.
    public var graceEnd: Date?
    /// When the episode ended, once it has.
    public var ended: Date?
    /// Whether the charge went through in the end.
    public var recovered: Bool?

    public init(due: Date, graceEnd: Date?, ended: Date? = nil, recovered: Bool? = nil) {
        self.due = due
        self.graceEnd = graceEnd
        self.ended = ended
        self.recovered = recovered
    }

    /// Whether the subscriber kept access at `instant` through the grace period of this episode.
    public func isInGrace(at instant: Date) -> Bool {
        guard let graceEnd, instant >= due, instant < graceEnd else { return false }
        return ended.map { instant < $0 } ?? true
    }
}
