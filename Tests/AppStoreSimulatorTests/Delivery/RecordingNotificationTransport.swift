import AppStoreModels
import AppStoreSimulator
import Foundation
import Synchronization

/// A ``NotificationTransport`` test double: keeps every post in order and answers from a
/// script that sees how many times the same body was posted to the same URL before.
final class RecordingNotificationTransport: NotificationTransport {
    /// One post as the double saw it.
    struct Post: Sendable, Hashable {
        var url: URL
        var body: Data
        var headers: [String: String]

        /// The V2 body's `signedPayload`, nil for other bodies.
        var signedPayload: String? {
            (try? JSONDecoder().decode(ResponseBodyV2.self, from: body))?.signedPayload
        }
    }

    typealias Script = @Sendable (_ post: Post, _ earlierPosts: Int) -> NotificationTransportResult

    private let script: Script
    private let recorded = Mutex<[Post]>([])
    private let flight = Mutex<(current: Int, maximum: Int)>((0, 0))
    private let latency: Duration

    /// A transport answering with `script`, taking `latency` per post.
    init(latency: Duration = .zero, script: @escaping Script = { _, _ in .response(status: 200) }) {
        self.latency = latency
        self.script = script
    }

    /// Answers every post with HTTP `status`.
    static func answering(_ status: Int) -> RecordingNotificationTransport {
        RecordingNotificationTransport { _, _ in .response(status: status) }
    }

    /// Fails the first `failures` posts of each body with HTTP 500, then answers 200.
    static func failingFirst(_ failures: Int) -> RecordingNotificationTransport {
        RecordingNotificationTransport { _, earlier in .response(status: earlier < failures ? 500 : 200) }
    }

    func post(_ body: Data, to url: URL, headers: [String: String]) async -> NotificationTransportResult {
        let post = Post(url: url, body: body, headers: headers)
        let earlier = recorded.withLock { posts in
            let count = posts.count(where: { $0.url == url && $0.body == body })
            posts.append(post)
            return count
        }
        flight.withLock { state in
            state.current += 1
            state.maximum = max(state.maximum, state.current)
        }
        if latency > .zero { try? await Task.sleep(for: latency) }
        flight.withLock { $0.current -= 1 }
        return script(post, earlier)
    }

    /// Every post, in the order they were made.
    var posts: [Post] { recorded.withLock { $0 } }

    /// The most posts that were in flight at once.
    var maximumInFlight: Int { flight.withLock { $0.maximum } }
}
