import AppStoreModels
import Foundation

/// The way the simulated App Store posts a notification body to the app's server.
///
/// The live value is ``AsyncHTTPNotificationTransport``; tests use an in-memory transport that
/// records what was posted. A transport never throws: every way a post can go wrong is a value
/// of ``NotificationTransportResult``, because for Apple a failed delivery is an ordinary,
/// recorded outcome (a `SendAttemptResult`), not an exception.
public protocol NotificationTransport: Sendable {
    /// Posts `body` to `url` with `headers` and reports what happened.
    func post(_ body: Data, to url: URL, headers: [String: String]) async -> NotificationTransportResult
}
