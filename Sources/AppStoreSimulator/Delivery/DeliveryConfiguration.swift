import Foundation

/// Where the simulated App Store sends notifications, and how unreliable it is on the way.
///
/// Every knob defaults to a perfect network (nothing lost, duplicated, delayed or reordered),
/// so a configuration decoded from `{}` or `{"v2URL": "…"}` behaves like Apple on a good day.
/// Random choices come from ``seed`` and each notification's UUID, so a run does not depend on
/// timing or on the order in which notifications were sent.
public struct DeliveryConfiguration: Sendable, Hashable, Codable {
    /// The app's V2 notification URL; nil sends no V2 notifications.
    public var v2URL: URL?
    /// The app's V1 notification URL; when set, records that carry a V1 body are also sent here.
    public var v1URL: URL?
    /// Probability (0…1) that a notification is lost entirely: none of Apple's attempts ever
    /// reaches the server, each is recorded as failed (timed out) and retried on schedule, in
    /// vain. Only reconciliation can recover such a notification.
    public var dropRate: Double
    /// Probability (0…1) that one attempt is lost on the way (recorded as timed out); Apple's
    /// retries recover it.
    public var attemptLossRate: Double
    /// Probability (0…1) that a delivered notification is delivered a second time, a little
    /// later. The duplicate is not a separate entry in the notification history.
    public var duplicateRate: Double
    /// The longest delay, in seconds, before a notification's first attempt; each first
    /// attempt waits a random time up to this. Apple's usually arrive within about 10 s.
    public var maximumDelay: TimeInterval
    /// The longest wait, in seconds, between a delivery and its duplicate (at least 1 s).
    public var maximumDuplicateDelay: TimeInterval
    /// Whether attempts due together are sent in shuffled order rather than in schedule order.
    public var reorder: Bool
    /// How many posts may be in flight at once (at least 1).
    public var concurrency: Int
    /// The seed of every random choice.
    public var seed: UInt64
    /// Apple's production behaviour observed since March 2026: no retry after an HTTP 400.
    /// Off by default (the documented behaviour retries every 4xx and 5xx).
    public var stopsRetryingAfterHTTP400: Bool

    /// A configuration; every knob defaults to a perfect network.
    public init(
        v2URL: URL? = nil, v1URL: URL? = nil, dropRate: Double = 0, attemptLossRate: Double = 0,
        duplicateRate: Double = 0, maximumDelay: TimeInterval = 0, maximumDuplicateDelay: TimeInterval = 30,
        reorder: Bool = false, concurrency: Int = 8, seed: UInt64 = 0, stopsRetryingAfterHTTP400: Bool = false
    ) {
        self.v2URL = v2URL
        self.v1URL = v1URL
        self.dropRate = dropRate
        self.attemptLossRate = attemptLossRate
        self.duplicateRate = duplicateRate
        self.maximumDelay = maximumDelay
        self.maximumDuplicateDelay = maximumDuplicateDelay
        self.reorder = reorder
        self.concurrency = concurrency
        self.seed = seed
        self.stopsRetryingAfterHTTP400 = stopsRetryingAfterHTTP400
    }

    private enum CodingKeys: String, CodingKey {
        case v2URL, v1URL, dropRate, attemptLossRate, duplicateRate, maximumDelay, maximumDuplicateDelay
        case reorder, concurrency, seed, stopsRetryingAfterHTTP400
    }

    /// Decodes a configuration; absent keys take their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = DeliveryConfiguration()
        v2URL = try container.decodeIfPresent(URL.self, forKey: .v2URL)
        v1URL = try container.decodeIfPresent(URL.self, forKey: .v1URL)
        dropRate = try container.decodeIfPresent(Double.self, forKey: .dropRate) ?? defaults.dropRate
        attemptLossRate = try container.decodeIfPresent(Double.self, forKey: .attemptLossRate) ?? defaults.attemptLossRate
        duplicateRate = try container.decodeIfPresent(Double.self, forKey: .duplicateRate) ?? defaults.duplicateRate
        maximumDelay = try container.decodeIfPresent(TimeInterval.self, forKey: .maximumDelay) ?? defaults.maximumDelay
        maximumDuplicateDelay =
            try container.decodeIfPresent(TimeInterval.self, forKey: .maximumDuplicateDelay)
            ?? defaults.maximumDuplicateDelay
        reorder = try container.decodeIfPresent(Bool.self, forKey: .reorder) ?? defaults.reorder
        concurrency = try container.decodeIfPresent(Int.self, forKey: .concurrency) ?? defaults.concurrency
        seed = try container.decodeIfPresent(UInt64.self, forKey: .seed) ?? defaults.seed
        stopsRetryingAfterHTTP400 =
            try container.decodeIfPresent(Bool.self, forKey: .stopsRetryingAfterHTTP400)
            ?? defaults.stopsRetryingAfterHTTP400
    }

    /// The URL of a channel.
    public func url(for channel: DeliveryChannel) -> URL? {
        switch channel {
        case .v2: return v2URL
        case .v1: return v1URL
        }
    }
}
