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
    /// The first 64 KiB of the answer's body (vendors explain refusals there).
    public var body: Data

    public init(status: Int, retryAfter: String? = nil, body: Data = Data()) {
        self.status = status
        self.retryAfter = retryAfter
        self.body = body
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
        var body = Data()
        for try await chunk in response.body where body.count < 64 * 1024 {
            body += Data(chunk.readableBytesView.prefix(64 * 1024 - body.count))
        }
        return WebhookAnswer(status: Int(response.status.code), retryAfter: response.headers.first(name: "retry-after"), body: body)
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
/// wait at least their `Retry-After`, and a 429 pauses the whole destination that long); dead
/// after the last retry; a 410 disables the webhook.
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
    /// Slack's one message a second per webhook, and the pauses 429s asked for, across this
    /// process's dispatch passes.
    let pacing = Pacing()
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
        // SQLite has one server process: leases a killed process held are free now.
        if store.backendName == "sqlite" { try? await store.releaseDeliveryLeases() }
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

    /// Leases one batch of due deliveries and sends them, each destination's in order and up to
    /// eight destinations at a time; returns how many deliveries were attempted.
    @discardableResult
    public func dispatchDue() async throws -> Int {
        let now = clock()
        if apps.apps.values.contains(where: { $0.storedWebhooks.isStale(at: now) }) {
            try await apps.reloadWebhooks(store: store, now: now)
        }
        let batch = try await store.leaseDeliveries(limit: batchSize, owner: owner, now: now, leaseUntil: now.addingTimeInterval(leaseSeconds))
        let groups = Dictionary(grouping: batch) { "\($0.appId)\u{1F}\($0.destination)" }.values.map { $0.sorted { $0.id < $1.id } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            var running = 0
            for deliveries in groups {
                if running == 8 {
                    try await group.next()
                    running -= 1
                }
                group.addTask { try await send(deliveries) }
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

    /// Records an attempt's outcome for `delivery`.
    func finish(
        _ delivery: OutboxDelivery, at now: Date, started: ContinuousClock.Instant, status: Int?, error: String?, outcome: DeliveryOutcome
    )
        async throws
    {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        try await store.finishDelivery(
            id: delivery.id, owner: owner,
            attempt: DeliveryAttempt(deliveryId: delivery.id, at: now, status: status, error: error, durationMilliseconds: milliseconds),
            outcome: outcome)
        metrics?.delivery(destination: delivery.destination, outcome: outcome, seconds: Double(milliseconds) / 1000)
        try await noteProblems(delivery, outcome: outcome, error: error, at: now)
    }

    /// A dead delivery opens a problem: a paying customer's event lost on the way to the app's
    /// backend is a support ticket with the money (`charged_not_delivered`), anything else the
    /// destination's `dead_letters`; a delivery that gets through resolves the latter.
    func noteProblems(_ delivery: OutboxDelivery, outcome: DeliveryOutcome, error: String?, at now: Date) async throws {
        let type = delivery.event.type.rawValue
        guard !type.hasPrefix("problem."), type != EventType.testEvent.rawValue, let app = apps.apps[delivery.appId] else { return }
        let desk = ProblemDesk(store: store)
        switch outcome {
        case .delivered:
            try await desk.resolve(causeKey: "\(ProblemDesk.deadLetters):\(delivery.destination)", app: app, by: "automatic", at: now)
            if delivery.attempts > 1 || delivery.state == .pending && delivery.lastError != nil {
                // A replayed or retried delivery that got through closes its ticket.
                let eventId = delivery.event.details.eventId ?? delivery.event.idempotencyKey
                try await desk.resolve(causeKey: "undelivered:\(eventId)", app: app, by: "automatic", at: now)
            }
        case .dead:
            let details = delivery.event.details
            let eventId = details.eventId ?? delivery.event.idempotencyKey
            var evidence = ["destination": delivery.destination, "eventId": eventId, "type": type, "attempts": "\(delivery.attempts)"]
            evidence["lastError"] = error
            evidence["transactionId"] = details.transactionId
            evidence["originalTransactionId"] = delivery.event.originalTransactionId
            evidence[ProblemDesk.environmentEvidence] = details.environment
            let paid = (IntegrationMessages.revenueSign(of: type) ?? 0) > 0 && details.price != nil
            let isWebhook = app.webhooks().contains { $0.id == delivery.destination }
            let problem =
                paid && isWebhook
                ? Problem(
                    appId: app.id, kind: ProblemDesk.chargedNotDelivered, causeKey: "undelivered:\(eventId)", customerId: delivery.event.customerId,
                    summary:
                        "\(delivery.event.customerId ?? "a customer") paid for \(details.productId ?? "a product") but \(delivery.destination) never received \(type)",
                    evidence: evidence, amount: details.price, currency: details.currency, openedAt: now)
                : Problem(
                    appId: app.id, kind: ProblemDesk.deadLetters, causeKey: "\(ProblemDesk.deadLetters):\(delivery.destination)",
                    summary: "deliveries to \(delivery.destination) are dead-lettered", evidence: evidence, openedAt: now)
            try await desk.open(problem, app: app, excluding: delivery.destination)
        case .retry:
            break
        }
    }

    /// Sends one destination's deliveries: webhooks and chat messages one by one, analytics
    /// vendors in batches.
    func send(_ deliveries: [OutboxDelivery]) async throws {
        guard let first = deliveries.first else { return }
        let now = clock()
        let started = ContinuousClock.now
        guard let app = apps.apps[first.appId] else {
            for delivery in deliveries {
                try await finish(delivery, at: now, started: started, status: nil, error: "the app is no longer configured", outcome: .dead)
            }
            return
        }
        let destination = "\(app.id)/\(first.destination)"
        if let webhook = app.webhooks().first(where: { $0.id == first.destination }) {
            try await sendEach(deliveries.map { [$0] }, to: destination) { unit in
                for delivery in unit { try await sendWebhook(delivery, webhook: webhook, app: app) }
            }
        } else if let integration = app.configuration.integrations.first(where: { $0.id == first.destination }) {
            switch integration.type {
            case .slack, .telegram:
                try await sendEach(deliveries.map { [$0] }, to: destination) { unit in
                    for delivery in unit { try await sendMessage(delivery, integration: integration, app: app) }
                }
            case .amplitude, .mixpanel:
                try await sendEach([deliveries], to: destination) { try await sendBatches($0, integration: integration, app: app) }
            }
        } else {
            for delivery in deliveries {
                try await finish(delivery, at: now, started: started, status: nil, error: "the destination is no longer configured", outcome: .dead)
            }
        }
    }

    /// Sends `units` (a delivery each, or a vendor's batch) one after the other with `send`
    /// while `destination` is not paused; once it is (it answered 429, here or in another pass),
    /// the rest are handed back unsent, due when the pause ends.
    func sendEach(_ units: [[OutboxDelivery]], to destination: String, send: ([OutboxDelivery]) async throws -> Void) async throws {
        for (index, unit) in units.enumerated() {
            if let until = await pacing.pausedUntil(destination, now: clock()) {
                try await store.postponeDeliveries(ids: units[index...].flatMap { $0.map(\.id) }, owner: owner, until: until)
                return
            }
            try await send(unit)
        }
    }

    /// Whether `url` may be reached for `app` now (private addresses only when the app allows them).
    func refusal(_ url: String, app: AppRuntime) -> String? {
        guard app.configuration.allowPrivateNetworks != true else { return nil }
        guard let host = URL(string: url)?.host else { return "refused: the URL is not valid" }
        return PrivateNetworks.resolvesPrivate(host: host) ? "refused: \(host) resolves to a loopback or private address" : nil
    }

    func data(_ delivery: OutboxDelivery) async throws -> [String: Any] {
        let aliases = try await delivery.event.customerId.asyncMap { try await store.aliases(appId: delivery.appId, customerId: $0) } ?? []
        return WebhookMessage.data(delivery.event, aliases: aliases)
    }

    /// What a batch vendor's refusal of some records says of the records it does not name.
    enum Unnamed {
        /// They were imported (Mixpanel's strict mode).
        case delivered
        /// Nothing was imported: they go again without the refused ones (Amplitude).
        case notImported
    }

    /// Posts `body` and records the outcome for `deliveries` (one request's worth). `refusals`
    /// reads an answer that names refused records (by delivery id, with why): those are dead,
    /// and the others are delivered or, when `unnamed` says nothing was imported, answered
    /// back to be posted again. A 429 pauses the whole destination (``Pacing``).
    @discardableResult
    func post(
        _ deliveries: [OutboxDelivery], url: String, headers: [(String, String)], body: Data, app: AppRuntime,
        refusals: (WebhookAnswer) -> [Int64: String]? = { _ in nil }, unnamed: Unnamed = .delivered
    ) async throws -> [OutboxDelivery] {
        let now = clock()
        let started = ContinuousClock.now
        guard let first = deliveries.first else { return [] }
        if let refusal = refusal(url, app: app) {
            for delivery in deliveries { try await finish(delivery, at: now, started: started, status: nil, error: refusal, outcome: .dead) }
            return []
        }
        guard let transport else { throw CancellationError() }
        let answer: WebhookAnswer
        do {
            answer = try await transport.post(url: url, headers: headers, body: body, timeout: timeout)
        } catch {
            let message = String(String(describing: error).prefix(300))
            for delivery in deliveries {
                try await finish(
                    delivery, at: now, started: started, status: nil, error: message,
                    outcome: retry(after: delivery.attempts, at: now, retryAfter: nil))
            }
            return []
        }
        if let refused = refusals(answer) {
            var again: [OutboxDelivery] = []
            for delivery in deliveries {
                if let error = refused[delivery.id] {
                    try await finish(delivery, at: now, started: started, status: answer.status, error: error, outcome: .dead)
                } else if unnamed == .delivered {
                    try await finish(delivery, at: now, started: started, status: answer.status, error: nil, outcome: .delivered)
                } else {
                    again.append(delivery)
                }
            }
            return again
        }
        switch answer.status {
        case 200..<300:
            for delivery in deliveries {
                try await finish(delivery, at: now, started: started, status: answer.status, error: nil, outcome: .delivered)
            }
        case 410:
            try await store.disableDestination(appId: app.id, destination: first.destination, reason: "the endpoint answered 410 Gone", at: now)
            logger.warning("destination disabled: its endpoint answered 410", metadata: ["app": "\(app.id)", "destination": "\(first.destination)"])
            for delivery in deliveries {
                try await finish(delivery, at: now, started: started, status: 410, error: "410 Gone: the destination is disabled", outcome: .dead)
            }
        default:
            let retryAfter = [429, 502, 503, 504].contains(answer.status) ? (answer.retryAfter ?? Self.telegramRetryAfter(answer.body)) : nil
            if answer.status == 429 {
                // The destination asked everyone to wait, not only this message.
                let asked = retryAfter.flatMap { Self.seconds(retryAfter: $0, now: now) } ?? Self.unspecifiedPause
                await pacing.pause("\(app.id)/\(first.destination)", until: now.addingTimeInterval(min(asked, 86_400)))
            }
            let reason = "HTTP \(answer.status)" + (answer.body.isEmpty ? "" : ": " + String(decoding: answer.body.prefix(200), as: UTF8.self))
            for delivery in deliveries {
                try await finish(
                    delivery, at: now, started: started, status: answer.status, error: reason,
                    outcome: retry(after: delivery.attempts, at: now, retryAfter: retryAfter))
            }
        }
        return []
    }

    func sendWebhook(_ delivery: OutboxDelivery, webhook: WebhookConfiguration, app: AppRuntime) async throws {
        let body = WebhookMessage.body(delivery.event, aliases: WebhookMessage.aliases(try await data(delivery)))
        let id = delivery.event.details.eventId ?? delivery.event.idempotencyKey
        let timestamp = Int64(clock().timeIntervalSince1970)
        let headers = [
            ("content-type", "application/json"), ("user-agent", "Storekeeper-Webhooks/1"), ("webhook-id", id),
            ("webhook-timestamp", "\(timestamp)"),
            ("webhook-signature", WebhookMessage.signature(id: id, timestamp: timestamp, body: body, keys: webhook.signingKeys)),
        ]
        try await post([delivery], url: webhook.url, headers: headers, body: body, app: app)
    }

    func sendMessage(_ delivery: OutboxDelivery, integration: IntegrationConfiguration, app: AppRuntime) async throws {
        guard let url = integration.endpoint else { return }
        let data = try await data(delivery)
        let type = delivery.event.type.rawValue
        let body =
            integration.type == .slack
            ? IntegrationMessages.slack(data: data, type: type, templates: integration.templates)
            : IntegrationMessages.telegram(data: data, type: type, chatId: integration.chatId ?? "", templates: integration.templates)
        if integration.type == .slack { await pacing.wait(for: "\(app.id)/\(integration.id)", interval: .seconds(1)) }
        try await post([delivery], url: url, headers: [("content-type", "application/json")], body: body, app: app)
    }

    /// Amplitude and Mixpanel take batches: at most 2,000 events and 1 MB (Amplitude) or 2 MB
    /// (Mixpanel) a request.
    func sendBatches(_ deliveries: [OutboxDelivery], integration: IntegrationConfiguration, app: AppRuntime) async throws {
        guard let url = integration.endpoint else { return }
        let limit = integration.type == .amplitude ? 1_000_000 : 2_000_000
        var events: [(OutboxDelivery, [String: Any], Int)] = []
        for delivery in deliveries {
            let data = try await data(delivery)
            let event =
                integration.type == .amplitude
                ? IntegrationMessages.amplitudeEvent(data: data, type: delivery.event.type.rawValue, time: delivery.event.occurredAt)
                : IntegrationMessages.mixpanelEvent(data: data, type: delivery.event.type.rawValue, time: delivery.event.occurredAt)
            events.append((delivery, event, IntegrationMessages.json(event).count + 1))
        }
        var start = 0
        while start < events.count {
            var end = start
            var size = 64
            while end < events.count, end - start < 2_000, size + events[end].2 <= limit || end == start {
                size += events[end].2
                end += 1
            }
            var chunk = Array(events[start..<end])
            start = end
            if integration.type == .amplitude {
                // Amplitude's 400 names the events it refuses and imports none: the rest go again.
                while !chunk.isEmpty {
                    let body = IntegrationMessages.json([
                        "api_key": integration.apiKey ?? "", "events": chunk.map(\.1),
                        // Amplitude refuses ids shorter than 5 characters unless told otherwise.
                        "options": ["min_id_length": 1],
                    ])
                    let ids = chunk.map(\.0.id)
                    let again = try await post(
                        chunk.map(\.0), url: url, headers: [("content-type", "application/json")], body: body, app: app,
                        refusals: { answer in
                            guard answer.status == 400 else { return nil }
                            return Self.named(IntegrationMessages.amplitudeRefusals(answer.body), ids: ids, vendor: "Amplitude")
                        }, unnamed: .notImported)
                    chunk = chunk.filter { event in again.contains { $0.id == event.0.id } }
                }
            } else {
                let credentials = Data("\(integration.serviceAccountUsername ?? ""):\(integration.serviceAccountSecret ?? "")".utf8)
                    .base64EncodedString()
                let body = IntegrationMessages.json(chunk.map(\.1))
                let ids = chunk.map(\.0.id)
                try await post(
                    chunk.map(\.0), url: url, headers: [("content-type", "application/json"), ("authorization", "Basic \(credentials)")], body: body,
                    app: app,
                    refusals: { answer in
                        // Strict mode: a 400 names the records it refused; the rest were imported.
                        guard answer.status == 400,
                            let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
                            let failed = object["failed_records"] as? [[String: Any]]
                        else { return nil }
                        var refused: [Int: String] = [:]
                        for record in failed {
                            guard let index = record["index"] as? Int else { continue }
                            refused[index] = "\(record["field"] as? String ?? "") \(record["message"] as? String ?? "")"
                        }
                        return Self.named(refused, ids: ids, vendor: "Mixpanel")
                    })
            }
        }
    }

    /// A vendor's refusals by index in the batch, as refusals by delivery id (`nil` when none
    /// names a record of the batch).
    static func named(_ refused: [Int: String], ids: [Int64], vendor: String) -> [Int64: String]? {
        var result: [Int64: String] = [:]
        for (index, why) in refused where ids.indices.contains(index) { result[ids[index]] = "refused by \(vendor): \(why)" }
        return result.isEmpty ? nil : result
    }

    /// How long a 429 that names no wait pauses its destination.
    static let unspecifiedPause: TimeInterval = 5

    /// Telegram's `parameters.retry_after` in a 429 body.
    static func telegramRetryAfter(_ body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let parameters = object["parameters"] as? [String: Any], let seconds = parameters["retry_after"] as? Int
        else { return nil }
        return "\(seconds)"
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

/// Spaces sends to one destination at least `interval` apart (Slack's one message a second,
/// on the continuous clock), and holds a destination back while it asked to wait: a 429's
/// `Retry-After` (Slack's header, Telegram's `parameters.retry_after`) pauses every delivery to
/// it until then, on the dispatcher's clock. Kept by this process: each replica learns of a
/// pause from its own 429.
actor Pacing {
    private var last: [String: ContinuousClock.Instant] = [:]
    private var pauses: [String: Date] = [:]

    func wait(for key: String, interval: Duration) async {
        let now = ContinuousClock.now
        if let previous = last[key], now < previous + interval {
            try? await Task.sleep(until: previous + interval, clock: .continuous)
        }
        last[key] = ContinuousClock.now
    }

    /// Pauses `key` until `date` (a later pause already set is kept).
    func pause(_ key: String, until date: Date) {
        pauses[key] = max(date, pauses[key] ?? date)
    }

    /// When the pause of `key` ends, if it is paused at `now`.
    func pausedUntil(_ key: String, now: Date) -> Date? {
        guard let until = pauses[key] else { return nil }
        guard until > now else {
            pauses[key] = nil
            return nil
        }
        return until
    }
}
