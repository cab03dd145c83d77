import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import StorekeeperEventsOut
import StorekeeperJobs
import StorekeeperServer
import Synchronization
import Testing

/// A vendor on a loopback port (Slack, Telegram, Amplitude, a webhook) for the dispatcher's
/// live HTTP transport: it records every POST with the time its clock read when it arrived (the
/// server's clock once ``withDispatcher(_:_:)`` runs), and answers from scripts kept per path
/// fragment (200 `{}` when none is left).
final class LoopbackDestination: Sendable {
    struct Request: Sendable {
        var path: String
        var headers: [String: String]
        var body: Data
        var at: Date
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        /// A webhook's event type, or an Amplitude batch's event types.
        var type: String { json["type"] as? String ?? "" }
        var data: [String: Any] { json["data"] as? [String: Any] ?? [:] }
        var events: [[String: Any]] { json["events"] as? [[String: Any]] ?? [] }
    }

    /// An answer: status, headers and body.
    struct Answer: Sendable {
        var status: Int
        var headers: [String: String] = [:]
        var body: String = "{}"
    }

    /// What arrived, what is left to answer, and the clock arrivals are stamped with.
    final class Recorded: Sendable {
        let state = Mutex<(requests: [Request], scripts: [String: [Answer]])>(([], [:]))
        let clock = Mutex<@Sendable () -> Date>({ Date() })
    }

    private let recorded = Recorded()
    let port: Int
    private let server: LoopbackServer

    init() async throws {
        var logger = Logger(label: "test.destination")
        logger.logLevel = .critical
        let router = Router(context: BasicRequestContext.self)
        let recorded = recorded
        router.post("**") { request, _ -> Response in
            var request = request
            let body = Data(buffer: try await request.collectBody(upTo: 4 << 20))
            let headers = Dictionary(request.headers.map { ($0.name.canonicalName, $0.value) }, uniquingKeysWith: { first, _ in first })
            let arrived = Request(path: request.uri.path, headers: headers, body: body, at: recorded.clock.withLock { $0 }())
            let answer = recorded.state.withLock { state -> Answer in
                state.requests.append(arrived)
                guard let part = state.scripts.keys.sorted().first(where: { arrived.path.contains($0) && state.scripts[$0]?.isEmpty == false })
                else { return Answer(status: 200) }
                return state.scripts[part]!.removeFirst()
            }
            var fields = HTTPFields()
            fields[.contentType] = "application/json"
            for (name, value) in answer.headers { fields[HTTPField.Name(name)!] = value }
            return Response(
                status: .init(code: answer.status), headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: answer.body)))
        }
        server = try await LoopbackServer(router: router, logger: logger, name: "loopback destination")
        port = server.port
    }

    /// `http://127.0.0.1:<port>`.
    var base: String { "http://127.0.0.1:\(port)" }

    /// Answers for requests whose path contains `part`, in order.
    func answer(pathContaining part: String, _ answers: Answer...) {
        recorded.state.withLock { $0.scripts[part, default: []] += answers }
    }

    /// The requests whose path contains `part`, oldest first.
    func requests(pathContaining part: String) -> [Request] {
        recorded.state.withLock { $0.requests.filter { $0.path.contains(part) } }
    }

    func stop() async {
        await server.stop()
    }

    /// Runs `body` with a dispatcher for `harness` that posts over HTTP to this destination.
    func withDispatcher(_ harness: ServerHarness, _ body: (ServerWork) async throws -> Void) async throws {
        var logger = Logger(label: "test.destination")
        logger.logLevel = .critical
        recorded.clock.withLock { $0 = { harness.clock.now } }
        let client = HTTPWebhookTransport.makeClient()
        var dependencies = ServerDependencies(store: harness.store, clock: { harness.clock.now }, logger: logger, runsInboxWorker: false)
        dependencies.webhookTransport = HTTPWebhookTransport(client: client)
        do {
            try await body(try ServerWork(configuration: harness.configuration, dependencies: dependencies))
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }
}
