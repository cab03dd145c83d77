import AppStoreModels

/// What one post of a notification came to: the server's HTTP status, or the reason no
/// status arrived, in the words of Apple's notification history (`SendAttemptResult`).
public enum NotificationTransportResult: Sendable, Hashable {
    /// The server answered with this HTTP status code.
    case response(status: Int)
    /// No usable answer arrived (time-out, refused connection, TLS failure, …).
    case failure(SendAttemptResult)

    /// Whether Apple counts the post as delivered: an HTTP status from 200 to 206.
    public var isSuccess: Bool {
        if case .response(let status) = self { return (200...206).contains(status) }
        return false
    }

    /// The outcome as Apple's notification history records it.
    public var sendAttemptResult: SendAttemptResult {
        switch self {
        case .response:
            return isSuccess ? .success : .unsuccessfulHttpResponseCode
        case .failure(let result):
            // A failure never reads as delivered, even if a transport mislabels it.
            return result == .success ? .other : result
        }
    }

    /// The HTTP status, when the server answered.
    public var status: Int? {
        if case .response(let status) = self { return status }
        return nil
    }
}
