import AppStoreModels
import Foundation
import Synchronization

/// The simulated App Store's Retention Messaging content, per app (bundle id) and environment:
/// uploaded images and messages with their review states, the default message of each product
/// and locale, and the real-time URL.
///
/// The HTTP endpoints write it under Apple's rules (``SimulatorEndpoints``); the population
/// simulator reads ``realtimeURL(bundleId:environment:)`` and
/// ``approvedMessages(bundleId:environment:)`` to call the developer's real-time endpoint.
///
/// Review: content is uploaded `PENDING`. With ``Configuration/Review/onNextList`` (the default)
/// the first list that shows a pending item approves it, so that list reports `PENDING` and every
/// later one `APPROVED`; with ``Configuration/Review/manual`` items stay pending until
/// ``review(imageIdentifier:bundleId:environment:state:)`` or
/// ``review(messageIdentifier:bundleId:environment:state:)`` decides. All access is serialized
/// by one lock.
public final class RetentionMessagingStore: Sendable {
    /// How the simulated review and URL checks behave.
    public struct Configuration: Sendable, Hashable {
        /// When uploaded content leaves `PENDING`.
        public enum Review: Sendable, Hashable {
            /// The first list showing a pending item approves it (after reporting it pending).
            case onNextList
            /// Only ``RetentionMessagingStore/review(imageIdentifier:bundleId:environment:state:)``
            /// and its message twin change states.
            case manual
        }

        /// When uploaded content is approved.
        public var review: Review
        /// Whether an `http` real-time URL is accepted when its host is loopback (`127.0.0.1`,
        /// `::1`, `localhost`), so tests can run a plain-HTTP endpoint; Apple requires `https`.
        public var allowsLoopbackHTTP: Bool
        /// Whether an `http` real-time URL is accepted for any host.
        public var allowsAnyHTTP: Bool
        /// Images an app may keep (Apple: 2000).
        public var maximumImages: Int
        /// The parameters of a performance test of the real-time URL. Apple does not publish
        /// its own; the simulator sends 20 requests, 4 at a time, each to be answered with a 2xx
        /// within 1000 ms, and passes an endpoint when 90% are.
        public var performanceTest: PerformanceTestConfig

        /// Apple's rules, approval on the next list, and plain HTTP allowed on loopback only.
        public init(
            review: Review = .onNextList, allowsLoopbackHTTP: Bool = true, allowsAnyHTTP: Bool = false, maximumImages: Int = 2000,
            performanceTest: PerformanceTestConfig = PerformanceTestConfig(
                maxConcurrentRequests: 4, totalRequests: 20, totalDuration: 0, responseTimeThreshold: 1000, successRateThreshold: 90)
        ) {
            self.review = review
            self.allowsLoopbackHTTP = allowsLoopbackHTTP
            self.allowsAnyHTTP = allowsAnyHTTP
            self.maximumImages = maximumImages
            self.performanceTest = performanceTest
        }
    }

    /// An uploaded image.
    public struct Image: Sendable, Hashable {
        /// The image identifier (a lowercase UUID string).
        public var imageIdentifier: String
        /// Full size or a bullet-point icon.
        public var imageSize: ImageSize
        /// The review state.
        public var imageState: ImageState
        /// The PNG's width in pixels.
        public var width: Int
        /// The PNG's height in pixels.
        public var height: Int
    }

    /// An uploaded message.
    public struct Message: Sendable, Hashable {
        /// The message identifier (a lowercase UUID string).
        public var messageIdentifier: String
        /// What was uploaded: header, body, image and bullet points.
        public var content: UploadMessageRequestBody
        /// The review state.
        public var messageState: MessageState
    }

    /// One performance test: what it tests, and its result once its requests were sent.
    struct PerformanceTestRun {
        var originalTransactionId: String
        var productId: String
        var target: URL
        var config: PerformanceTestConfig
        var isRunning = false
        var result: PerformanceTestResultResponse?
    }

    struct App {
        var images: [String: Image] = [:]
        var imageOrder: [String] = []
        var messages: [String: Message] = [:]
        var messageOrder: [String] = []
        /// `productId` → `locale` → message identifier.
        var defaults: [String: [String: String]] = [:]
        var realtimeURL: URL?
        var performanceTests: [String: PerformanceTestRun] = [:]
    }

    struct Key: Hashable {
        var bundleId: String
        var environment: AppStoreEnvironment
    }

    private let apps = Mutex<[Key: App]>([:])
    private let settings: Mutex<Configuration>

    /// An empty store following `configuration`.
    public init(configuration: Configuration = Configuration()) {
        settings = Mutex(configuration)
    }

    /// The review and URL rules in force; changing them affects the next request.
    public var configuration: Configuration {
        get { settings.withLock { $0 } }
        set { settings.withLock { $0 = newValue } }
    }

    // MARK: Reading (for the population simulator and tests)

    /// The real-time URL the app configured in `environment`, if any.
    public func realtimeURL(bundleId: String, environment: AppStoreEnvironment) -> URL? {
        apps.withLock { $0[Key(bundleId: bundleId, environment: environment)]?.realtimeURL }
    }

    /// The app's approved messages in `environment`, in upload order.
    public func approvedMessages(bundleId: String, environment: AppStoreEnvironment) -> [Message] {
        apps.withLock { apps in
            let app = apps[Key(bundleId: bundleId, environment: environment)] ?? App()
            return app.messageOrder.compactMap { app.messages[$0] }.filter { $0.messageState == .approved }
        }
    }

    /// The default message identifier of a product and locale, if one is configured.
    public func defaultMessage(bundleId: String, environment: AppStoreEnvironment, productId: String, locale: String) -> String? {
        apps.withLock { $0[Key(bundleId: bundleId, environment: environment)]?.defaults[productId]?[locale] }
    }

    /// Every image of the app in `environment`, in upload order (states unchanged).
    public func images(bundleId: String, environment: AppStoreEnvironment) -> [Image] {
        apps.withLock { apps in
            let app = apps[Key(bundleId: bundleId, environment: environment)] ?? App()
            return app.imageOrder.compactMap { app.images[$0] }
        }
    }

    /// Sets an image's review state (a deterministic review); false when there is no such image.
    @discardableResult
    public func review(imageIdentifier: UUID, bundleId: String, environment: AppStoreEnvironment, state: ImageState) -> Bool {
        let id = imageIdentifier.uuidString.lowercased()
        return apps.withLock { apps in
            let key = Key(bundleId: bundleId, environment: environment)
            guard apps[key]?.images[id] != nil else { return false }
            apps[key]?.images[id]?.imageState = state
            return true
        }
    }

    /// Sets a message's review state (a deterministic review); false when there is no such message.
    @discardableResult
    public func review(messageIdentifier: UUID, bundleId: String, environment: AppStoreEnvironment, state: MessageState) -> Bool {
        let id = messageIdentifier.uuidString.lowercased()
        return apps.withLock { apps in
            let key = Key(bundleId: bundleId, environment: environment)
            guard apps[key]?.messages[id] != nil else { return false }
            apps[key]?.messages[id]?.messageState = state
            return true
        }
    }

    // MARK: Writing (the endpoints, under Apple's rules)

    /// Runs `body` on one app's content under the lock; a thrown error leaves it unchanged.
    func withApp<T>(bundleId: String, environment: AppStoreEnvironment, _ body: (inout App, Configuration) throws -> T) rethrows -> T {
        let configuration = self.configuration
        return try apps.withLock { apps in
            let key = Key(bundleId: bundleId, environment: environment)
            var app = apps[key] ?? App()
            let result = try body(&app, configuration)
            apps[key] = app
            return result
        }
    }
}
