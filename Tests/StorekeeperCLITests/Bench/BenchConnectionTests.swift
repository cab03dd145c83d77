import NIOCore
import NIOPosix
import Testing

@testable import StorekeeperCLI

/// The benchmark's lean HTTP connection against loopback servers that answer, stay silent or
/// hang up: answers arrive whole and in order, and a silent or closed server ends the wait.
@Suite("bench connection")
struct BenchConnectionTests {
    /// How the test server treats each request it reads.
    enum Manner: Sendable {
        case answer
        case silence
        case hangUp
    }

    /// A one-connection loopback server; `answer` replies to every request with a 200 whose body
    /// names the request's path, on the same keep-alive connection.
    final class Peer: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let manner: Manner

        init(manner: Manner) { self.manner = manner }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let text = String(buffer: unwrapInboundIn(data))
            switch manner {
            case .silence: return
            case .hangUp: context.close(promise: nil)
            case .answer:
                // Each request here is a bodiless GET or a short POST, read whole in one go.
                for request in text.components(separatedBy: "\r\n\r\n") where request.hasPrefix("GET ") || request.hasPrefix("POST ") {
                    let path = request.split(separator: " ")[1]
                    let body = "you asked for \(path)"
                    let response = "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response)), promise: nil)
                }
            }
        }
    }

    static func withPeer(_ manner: Manner, _ body: (Int) async throws -> Void) async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Peer(manner: manner)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        do {
            try await body(try #require(server.localAddress?.port))
            try await server.close()
        } catch {
            try? await server.close()
            throw error
        }
    }

    @Test("answers come back whole, in order, on one kept-alive connection")
    func answers() async throws {
        try await Self.withPeer(.answer) { port in
            let connection = try await BenchConnection.connect(host: "127.0.0.1", port: port)
            for path in ["/first", "/second", "/third"] {
                // Generous: the answer is what is tested, not how soon it comes on a loaded machine.
                let response = try await connection.send(.GET, path, timeout: .seconds(120))
                #expect(response.status == 200)
                #expect(String(buffer: response.body) == "you asked for \(path)")
            }
            let posted = try await connection.send(.POST, "/posted", body: ByteBuffer(string: "{}"), timeout: .seconds(120))
            #expect(String(buffer: posted.body) == "you asked for /posted")
            await connection.close()
        }
    }

    @Test("a server that never answers ends the wait at the timeout")
    func silence() async throws {
        try await Self.withPeer(.silence) { port in
            let connection = try await BenchConnection.connect(host: "127.0.0.1", port: port)
            await #expect(throws: BenchConnection.TimedOut.self) {
                _ = try await connection.send(.GET, "/health", timeout: .milliseconds(200))
            }
            await connection.close()
        }
    }

    @Test("a server that hangs up fails the request instead of leaving it waiting")
    func hangUp() async throws {
        try await Self.withPeer(.hangUp) { port in
            let connection = try await BenchConnection.connect(host: "127.0.0.1", port: port)
            await #expect(throws: (any Error).self) {
                _ = try await connection.send(.GET, "/health")
            }
            await #expect(throws: (any Error).self) {
                _ = try await connection.send(.GET, "/health", timeout: .seconds(10))
            }
            await connection.close()
        }
    }
}
