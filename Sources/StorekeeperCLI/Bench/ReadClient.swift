import Foundation
import NIOCore
import NIOHTTP1

/// One client of `storekeeper bench read`: a keep-alive connection to the server
/// (``BenchConnection``), opened again for the next request after one failed or timed out on
/// it, so a slow or failing route does not end the run.
struct ReadClient: Sendable {
    let port: Int
    /// How long one answer may take.
    var timeout: TimeAmount
    private var connection: BenchConnection?

    init(port: Int, timeout: TimeAmount) {
        self.port = port
        self.timeout = timeout
    }

    /// One timed answer: its status (0 when no answer came), its body's size and text, and
    /// what went wrong when the request failed.
    struct Answer: Sendable {
        var status: Int
        var bytes: Int
        var text: String
        var milliseconds: Double
        var error: String?
    }

    /// A request timed from its sending to the whole answer; a connection is opened first when
    /// there is none (not timed).
    mutating func timed(
        _ method: HTTPMethod = .GET, _ path: String, headers: [(String, String)] = [], body: ByteBuffer? = nil
    ) async -> (answer: Answer, headers: HTTPHeaders) {
        do {
            let open = try await openConnection()
            let clock = ContinuousClock()
            let sent = clock.now
            do {
                let response = try await open.send(method, path, headers: headers, body: body, timeout: timeout)
                let milliseconds = (clock.now - sent).seconds * 1000
                return (
                    Answer(
                        status: response.status, bytes: response.body.readableBytes, text: String(buffer: response.body), milliseconds: milliseconds),
                    response.headers
                )
            } catch {
                let milliseconds = (clock.now - sent).seconds * 1000
                await open.close()
                connection = nil
                return (Answer(status: 0, bytes: 0, text: "", milliseconds: milliseconds, error: "\(error)"), HTTPHeaders())
            }
        } catch {
            return (Answer(status: 0, bytes: 0, text: "", milliseconds: 0, error: "cannot connect: \(error)"), HTTPHeaders())
        }
    }

    /// A timed GET.
    mutating func get(_ path: String, headers: [(String, String)]) async -> Answer {
        await timed(.GET, path, headers: headers).answer
    }

    func close() async {
        await connection?.close()
    }

    private mutating func openConnection() async throws -> BenchConnection {
        if let connection { return connection }
        let opened = try await BenchConnection.connect(host: "127.0.0.1", port: port)
        connection = opened
        return opened
    }
}
