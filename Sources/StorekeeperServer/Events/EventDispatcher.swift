import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import StorekeeperStore

/// What the dispatcher sends with: an HTTP POST that never follows redirects. Tests and the
/// demo use the live one against local receivers.
public protocol WebhookTransport: Sendable {
    func post(url: String, headers: [(String, String)], body: Data, timeout: TimeAmount) async throws -> WebhookAnswer
}

/// A destination's answer: its status and `Retry-After`, if any.
public struct WebhookAnswer: Sendable {
    public var status: Int
    public var retryAfter: String?

    public init(status: Int, retryAfter: String? = nil) {
        self.status = status
        self.retryAfter = retryAfter
    }
}

/// The live transport: AsyncHTTPClient with redirects off.
public struct HTTPWebhookTransport: WebhookTransport {
    let client: HTTPClient

    public init(client: HTTPClient) { self.client = client }

    public func post(url: String, headers: [(String, String)], body: Data, timeout: TimeAmount) async throws -> WebhookAnswer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await client.execute(request, timeout: timeout)
        // The body is not needed: read a little and drop the connection's rest.
        _ = try? await response.body.collect(upTo: 64 * 1024)
        return WebhookAnswer(status: Int(response.status.code), retryAfter: response.headers.first(name: "retry-after"))
    }

    /// A client for webhooks: no redirects, bounded connection time.
    public static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(15)))
        configuration.httpVersion = .http1Only
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}

/// Sends the outbox: leases due deliveries (several dispatchers never hold one at once), posts
/// each to its webhook signed the Standard Webhooks way, and records the attempt: delivered on
/// 2xx; retried on anything else (a 3xx is a failure and never followed; 429, 502, 503 and 504
/// wait at least their `Retry-After`); dead after the last retry; a 410 disables the webhook.
public struct EventDispatcher: Service {
    let apps: AppDirectory
    let store: any StorekeeperStorage
    let clock: @Sendable () -> Date
    let logger: Logger
    /// `nil` until ``run()`` makes the live one (and shuts it down at the end).
    var transport: (any WebhookTransport)?
    let metrics: ServerMetrics?
    public let owner: String
    var pollInterval: Duration = .seconds(1)
    var batchSize = 50
    var leaseSeconds: TimeInterval = 60
    var timeout: TimeAmount = .seconds(15)
    /// A number in -0.1…0.1 for each retry's jitter.
    var jitter: @Sendable () -> Double = { Double.random(in: -0.1...0.1) }

    init(
        apps: AppDirectory, store: any StorekeeperStorage, clock: @escaping @Sendable () -> Date, logger: Logger,
        transport: (any WebhookTransport)?, metrics: ServerMetrics?, owner: String = "dispatcher-\(UUID().uuidString.prefix(8))"
    ) {
        self.apps = apps
        self.store = store
        self.clock = clock
        self.logger = logger
        self.transport = transport
        self.metrics = metrics
        self.owner = owner
    }

    public func run() async throws {
        var dispatcher = self
        var client: HTTPClient?
        if transport == nil {
            client = HTTPWebhookTransport.makeClient()
            dispatcher.transport = HTTPWebhookTransport(client: client!)
        }
        await dispatcher.loop()
        try? await client?.shutdown()
    }

    private func loop() async {
        await cancelWhenGracefulShutdown {
            var failures = FailureLog()
            while !Task.isCancelled {
                do {
                    let sent = try await dispatchDue()
                    FailureLog.write(failures.succeeded(), name: "event delivery", error: nil, to: logger)
                    if sent > 0 { continue }
                } catch {
                    FailureLog.write(failures.failed(at: Date()), name: "event delivery", error: error, to: logger)
                }
                try? await Task.sleep(for: pollInterval)
            }
        }
    }

    /// Leases one batch of due deliveries and attempts each (eight at a time); returns how many.
    @discardableResult
    public func dispatchDue() async throws -> Int {
        let now = clock()
        let batch = try await store.leaseDeliveries(limit: batchSize, owner: owner, now: now, leaseUntil: now.addingTimeInterval(leaseSeconds))
        try await withThrowingTaskGroup(of: Void.self) { group in
            var running = 0
            for delivery in batch {
                if running == 8 {
                    try await group.next()
                    running -= 1
                }
                group.addTask { try await attempt(delivery) }
                running += 1
            }
            try await group.waitForAll()
        }
        return batch.count
    }

    /// Sends every due delivery until none is left (the demo and tests step time by hand).
    @discardableResult
    public func drain() async throws -> Int {
        var total = 0
        while true {
            let sent = try await dispatchDue()
            if sent == 0 { return total }
            total += sent
        }
    }

    func attempt(_ delivery: OutboxDelivery) async throws {
        let started = ContinuousClock.now
        let now = clock()
        func finish(status: Int?, error: String?, outcome: DeliveryOutcome) async throws {
            let elapsed = ContinuousClock.now - started
            let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
            try await store.finishDelivery(
                id: delivery.id, owner: owner,
                attempt: DeliveryAttempt(deliveryId: delivery.id, at: now, status: status, error: error, durationMilliseconds: milliseconds),
                outcome: outcome)
            metrics?.delivery(destination: delivery.destination, outcome: outcome, seconds: Double(milliseconds) / 1000)
        }
        guard let app = apps.apps[delivery.appId], let webhook = app.configuration.webhooks.first(where: { $0.id == delivery.destination }) else {
            return try await finish(status: nil, error: "the destination is no longer configured", outcome: .dead)
        }
        if app.configuration.allowPrivateNetworks != true, let host = URL(string: webhook.url)?.host,
            PrivateNetworks.resolvesPrivate(host: host)
        {
            return try await finish(status: nil, error: "refused: \(host) resolves to a loopback or private address", outcome: .dead)
        }
        let aliases = try await delivery.event.customerId.asyncMap { try await store.aliases(appId: app.id, customerId: $0) } ?? []
        let body = WebhookMessage.body(delivery.event, aliases: aliases)
        let id = delivery.event.details.eventId ?? delivery.event.idempotencyKey
        let timestamp = Int64(now.timeIntervalSince1970)
        let headers = [
            ("content-type", "application/json"), ("user-agent", "Storekeeper-Webhooks/1"), ("webhook-id", id),
            ("webhook-timestamp", "\(timestamp)"),
            ("webhook-signature", WebhookMessage.signature(id: id, timestamp: timestamp, body: body, keys: webhook.signingKeys)),
        ]
        guard let transport else { throw CancellationError() }
        let answer: WebhookAnswer
        do {
            answer = try await transport.post(url: webhook.url, headers: headers, body: body, timeout: timeout)
        } catch {
            let message = String(String(describing: error).prefix(300))
            return try await finish(status: nil, error: message, outcome: retry(after: delivery.attempts, at: now, retryAfter: nil))
        }
        switch answer.status {
        case 200..<300:
            try await finish(status: answer.status, error: nil, outcome: .delivered)
        case 410:
            try await store.disableDestination(
                appId: app.id, destination: webhook.id, reason: "the endpoint answered 410 Gone", at: now)
            logger.warning("webhook disabled: its endpoint answered 410", metadata: ["app": "\(app.id)", "webhook": "\(webhook.id)"])
            try await finish(status: 410, error: "410 Gone: the webhook is disabled", outcome: .dead)
        default:
            let honoured = [429, 502, 503, 504].contains(answer.status) ? answer.retryAfter : nil
            try await finish(
                status: answer.status, error: "HTTP \(answer.status)", outcome: retry(after: delivery.attempts, at: now, retryAfter: honoured))
        }
    }

    /// The outcome of failed attempt `attempt`: a retry on the schedule (at least `Retry-After`,
    /// capped at a day), or dead when retries ran out.
    func retry(after attempt: Int, at now: Date, retryAfter: String?) -> DeliveryOutcome {
        guard let delay = RetrySchedule.delay(after: attempt, jitter: jitter()) else { return .dead }
        let asked = retryAfter.flatMap { Self.seconds(retryAfter: $0, now: now) } ?? 0
        return .retry(at: now.addingTimeInterval(max(delay, min(asked, 86_400))))
    }

    /// `Retry-After` as seconds: a number, or an HTTP date.
    static func seconds(retryAfter text: String, now: Date) -> TimeInterval? {
        if let seconds = TimeInterval(text.trimmingCharacters(in: .whitespaces)), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text).map { max(0, $0.timeIntervalSince(now)) }
    }
}
