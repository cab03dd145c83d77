import NIOCore
import NIOHTTP1
import NIOPosix

/// One keep-alive HTTP/1.1 connection of `storekeeper bench server`'s load, one request in
/// flight at a time, as `wrk` drives a server: the request goes out through NIO's encoder in
/// one flush, its answer comes back through NIO's decoder, and nothing else runs per request.
/// A general client (connection pooling, redirects, retries) would spend the CPU the server
/// under test shares on this machine.
final class BenchConnection: Sendable {
    /// A whole answer: its status, its headers and its body.
    struct Response: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: ByteBuffer
    }

    struct Closed: Error, CustomStringConvertible {
        var description: String { "the server closed the connection" }
    }

    struct TimedOut: Error, CustomStringConvertible {
        var description: String { "no answer in time; the connection is closed" }
    }

    private let channel: any Channel
    private let host: String

    private init(channel: any Channel, host: String) {
        self.channel = channel
        self.host = host
    }

    /// Opens a connection to `host:port` on NIO's shared event loops.
    static func connect(host: String, port: Int) async throws -> BenchConnection {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(Exchange())
                }
            }
            .connect(host: host, port: port)
            .get()
        return BenchConnection(channel: channel, host: "\(host):\(port)")
    }

    /// Sends one request and waits for its whole answer; after `timeout` (if any) without one,
    /// closes the connection and throws.
    func send(
        _ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: ByteBuffer? = nil, timeout: TimeAmount? = nil
    ) async throws -> Response {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: host)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if let body { head.headers.add(name: "Content-Length", value: String(body.readableBytes)) }
        let answer = channel.eventLoop.makePromise(of: Response.self)
        if let timeout {
            let timer = channel.eventLoop.scheduleTask(in: timeout) { [channel] in
                answer.fail(TimedOut())
                channel.close(promise: nil)
            }
            answer.futureResult.whenComplete { _ in timer.cancel() }
        }
        // A write that fails (the connection already closed) fails the answer too; completing
        // a promise that is already complete does nothing.
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenFailure { answer.fail($0) }
        channel.writeAndFlush(Exchange.Request(head: head, body: body, answer: answer), promise: written)
        return try await answer.futureResult.get()
    }

    func close() async {
        try? await channel.close()
    }

    /// Writes a request's parts and completes its promise with the answer that follows.
    private final class Exchange: ChannelDuplexHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundIn = Request
        typealias OutboundOut = HTTPClientRequestPart

        struct Request: Sendable {
            var head: HTTPRequestHead
            var body: ByteBuffer?
            var answer: EventLoopPromise<Response>
        }

        private var waiting: EventLoopPromise<Response>?
        private var status = 0
        private var headers = HTTPHeaders()
        private var body = ByteBuffer()

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let request = unwrapOutboundIn(data)
            guard waiting == nil else {
                request.answer.fail(ChannelError.inappropriateOperationForState)
                return
            }
            waiting = request.answer
            context.write(wrapOutboundOut(.head(request.head)), promise: nil)
            if let body = request.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
            context.write(wrapOutboundOut(.end(nil)), promise: promise)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                status = Int(head.status.code)
                headers = head.headers
                body = ByteBuffer()
            case .body(var part):
                if body.readableBytes == 0 { body = part } else { body.writeBuffer(&part) }
            case .end:
                let answer = waiting
                waiting = nil
                answer?.succeed(Response(status: status, headers: headers, body: body))
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            waiting?.fail(error)
            waiting = nil
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            waiting?.fail(Closed())
            waiting = nil
            context.fireChannelInactive()
        }
    }
}
