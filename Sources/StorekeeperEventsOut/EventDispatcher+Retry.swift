import Foundation
import StorekeeperStore

extension EventDispatcher {
    /// How long a 429 that names no wait pauses its destination.
    package static let unspecifiedPause: TimeInterval = 5

    /// Telegram's `parameters.retry_after` in a 429 body.
    package static func telegramRetryAfter(_ body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let parameters = object["parameters"] as? [String: Any], let seconds = parameters["retry_after"] as? Int
        else { return nil }
        return "\(seconds)"
    }

    /// The outcome of failed attempt `attempt`: a retry on the schedule (at least `Retry-After`,
    /// capped at a day), or dead when retries ran out.
    package func retry(after attempt: Int, at now: Date, retryAfter: String?) -> DeliveryOutcome {
        guard let delay = RetrySchedule.delay(after: attempt, jitter: jitter()) else { return .dead }
        let asked = retryAfter.flatMap { Self.seconds(retryAfter: $0, now: now) } ?? 0
        return .retry(at: now.addingTimeInterval(max(delay, min(asked, 86_400))))
    }

    /// `Retry-After` as seconds: a number, or an HTTP date.
    package static func seconds(retryAfter text: String, now: Date) -> TimeInterval? {
        if let seconds = TimeInterval(text.trimmingCharacters(in: .whitespaces)), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text).map { max(0, $0.timeIntervalSince(now)) }
    }
}
