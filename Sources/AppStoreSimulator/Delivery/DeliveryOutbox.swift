import AppStoreModels
import Foundation

/// The pure state of notification delivery: which posts are due when, and what each outcome
/// leads to (a history entry, a retry on Apple's schedule, a duplicate, or giving up).
///
/// No I/O and no clock: ``NotificationDelivery`` takes the due posts, sends them, and feeds
/// each outcome back through ``complete(_:outcome:)``.
struct DeliveryOutbox: Sendable {
    /// One post the outbox will make: an attempt of Apple's schedule, or the duplicate of a
    /// delivered notification.
    struct Post: Sendable, Hashable {
        /// What the post is.
        enum Kind: Sendable, Hashable {
            /// Attempt `number` of Apple's schedule (0 for the first, then the retries).
            case attempt(Int)
            /// A second delivery of a notification already delivered; no history entry.
            case duplicate
        }

        var notificationUUID: String
        var channel: DeliveryChannel
        var kind: Kind
        /// The simulated instant the post is due; an attempt's history date.
        var dueDate: Date
        var url: URL
        var body: Data
        /// Whether the notification was chosen to be lost entirely on this channel.
        var isDropped: Bool
        /// Scheduling order, to break ties between posts due at the same instant.
        var sequence: Int

        /// The attempt number, nil for a duplicate.
        var attemptNumber: Int? {
            if case .attempt(let number) = kind { return number }
            return nil
        }
    }

    /// How a post ended.
    enum Outcome: Sendable, Hashable {
        /// The post never reached the server (a dropped notification or a lost attempt).
        case lost
        /// The transport's answer.
        case sent(NotificationTransportResult)
    }

    /// What completing a post changes outside the outbox.
    struct Completion: Sendable, Hashable {
        /// The entry to append to the notification's history (V2 attempts only).
        var historyEntry: SendAttemptItem?
        /// The counts this post adds.
        var report: DeliveryReport
    }

    let configuration: DeliveryConfiguration
    let environment: AppStoreEnvironment
    let dice: DeliveryDice
    private(set) var pending: [Post] = []
    private var scheduled: Set<String> = []
    private var sequence = 0
    private var rounds = 0

    init(configuration: DeliveryConfiguration, environment: AppStoreEnvironment) {
        self.configuration = configuration
        self.environment = environment
        self.dice = DeliveryDice(configuration: configuration)
    }

    /// The earliest instant a post is due, nil when nothing is pending.
    var nextDueDate: Date? { pending.map(\.dueDate).min() }

    /// Schedules the first attempt of a notification on each channel it can be sent on;
    /// returns those channels (none when it was enqueued before or no URL is configured).
    mutating func enqueue(_ record: NotificationRecord) -> [DeliveryChannel] {
        var channels: [DeliveryChannel] = []
        for channel in DeliveryChannel.allCases {
            guard let url = configuration.url(for: channel), let body = Self.body(of: record, channel: channel) else { continue }
            let key = "\(channel.rawValue)/\(record.notificationUUID)"
            guard scheduled.insert(key).inserted else { continue }
            let uuid = record.notificationUUID
            schedule(
                Post(
                    notificationUUID: uuid, channel: channel, kind: .attempt(0),
                    dueDate: record.firstSendDate.addingTimeInterval(dice.firstAttemptDelay(uuid, channel)),
                    url: url, body: body, isDropped: dice.isDropped(uuid, channel), sequence: 0))
            channels.append(channel)
        }
        return channels
    }

    /// Removes and returns the posts due at `now`, in schedule order, or shuffled when the
    /// configuration asks for reordering.
    mutating func takeDue(now: Date) -> [Post] {
        var due: [Post] = []
        pending.removeAll { post in
            guard post.dueDate <= now else { return false }
            due.append(post)
            return true
        }
        due.sort { ($0.dueDate, $0.sequence) < ($1.dueDate, $1.sequence) }
        if configuration.reorder, due.count > 1 {
            var random = dice.reorderGenerator(round: rounds)
            due.shuffle(using: &random)
        }
        rounds += 1
        return due
    }

    /// Whether a post will be lost rather than sent.
    func isLost(_ post: Post) -> Bool {
        guard let attempt = post.attemptNumber else { return false }
        return post.isDropped || dice.isAttemptLost(post.notificationUUID, post.channel, attempt: attempt)
    }

    /// Applies the outcome of a post: counts it, and schedules a retry, a duplicate, or nothing.
    mutating func complete(_ post: Post, outcome: Outcome) -> Completion {
        var report = DeliveryReport()
        guard let attempt = post.attemptNumber else {
            report.duplicatesSent = 1
            return Completion(historyEntry: nil, report: report)
        }
        report.attempts = 1
        if attempt == 0 {
            report.notifications = 1
            if post.isDropped { report.dropped = 1 }
        }
        let result: SendAttemptResult
        switch outcome {
        case .lost:
            result = .timedOut
            report.lost = 1
        case .sent(let answer):
            result = answer.sendAttemptResult
        }
        if result == .success {
            report.successes = 1
            if dice.isDuplicated(post.notificationUUID, post.channel) {
                var duplicate = post
                duplicate.kind = .duplicate
                duplicate.dueDate = post.dueDate.addingTimeInterval(dice.duplicateDelay(post.notificationUUID, post.channel))
                schedule(duplicate)
            }
        } else {
            report.failures = 1
            if let retryDate = retryDate(after: post, outcome: outcome) {
                var retry = post
                retry.kind = .attempt(attempt + 1)
                retry.dueDate = retryDate
                schedule(retry)
                report.retriesScheduled = 1
            } else {
                report.abandoned = 1
            }
        }
        let entry = post.channel == .v2 ? SendAttemptItem(attemptDate: post.dueDate, sendAttemptResult: result) : nil
        return Completion(historyEntry: entry, report: report)
    }

    private func retryDate(after post: Post, outcome: Outcome) -> Date? {
        if configuration.stopsRetryingAfterHTTP400, case .sent(let answer) = outcome, answer.status == 400 { return nil }
        let schedule = NotificationRetrySchedule.apple(channel: post.channel, environment: environment)
        return schedule.retryDate(afterAttempt: post.attemptNumber ?? 0, at: post.dueDate)
    }

    private mutating func schedule(_ post: Post) {
        var post = post
        sequence += 1
        post.sequence = sequence
        pending.append(post)
    }

    /// The body a channel posts: `{"signedPayload": …}` for V2, the stored V1 body for V1.
    static func body(of record: NotificationRecord, channel: DeliveryChannel) -> Data? {
        switch channel {
        case .v2:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return try? encoder.encode(ResponseBodyV2(signedPayload: record.signedPayload))
        case .v1:
            return record.v1Body
        }
    }
}
