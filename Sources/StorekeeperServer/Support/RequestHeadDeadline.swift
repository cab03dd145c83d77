import HummingbirdCore
import NIOCore

/// Closes a connection whose request head does not arrive in time: within the head timeout of
/// the connection opening, and within the idle timeout of the previous response. Hummingbird's
/// idle timeout counts silence, so a client trickling a header a byte at a time would otherwise
/// hold its connection (and a slot of the connection cap) for as long as it likes.
final class RequestHeadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPConnectionStateHandler.InboundIn
    typealias InboundOut = HTTPConnectionStateHandler.InboundIn
    typealias OutboundIn = HTTPConnectionStateHandler.OutboundIn
    typealias OutboundOut = HTTPConnectionStateHandler.OutboundIn

    private let first: TimeAmount
    private let next: TimeAmount
    private var timer: Scheduled<Void>?
    /// Requests whose head arrived and whose response has not ended.
    private var inFlight = 0

    init(headTimeout: TimeAmount, idleTimeout: TimeAmount) {
        first = headTimeout
        next = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, first) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context, first)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            inFlight += 1
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            inFlight = max(0, inFlight - 1)
            if inFlight == 0 { arm(context, next) }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, _ timeout: TimeAmount) {
        disarm()
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { context.close(promise: nil) }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }
}
