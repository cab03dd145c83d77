import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPCompression

/// The bytes of an export file, read in chunks: as stored, or inflated when the file is gzip
/// (recognized by its magic bytes `1f 8b`, whatever its name), so a file of any size is read in
/// bounded memory.
///
/// Inflating uses swift-nio-extras' zlib decompressor (already in the dependency graph through
/// AsyncHTTPClient), driven on an `EmbeddedChannel` as if the file were a gzip-encoded HTTP body.
final class ExportFileBytes {
    /// A file that cannot be read, or a gzip stream that is corrupt or cut short.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let chunkSize = 256 * 1024

    private let handle: FileHandle
    private let inflater: EmbeddedChannel?
    private var finished = false
    /// Whether the file is gzip.
    let isCompressed: Bool
    private var pending: [UInt8] = []

    init(path: String) throws(Failure) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure(description: "cannot read \(path)") }
        self.handle = handle
        let first: Data
        do {
            first = try handle.read(upToCount: Self.chunkSize) ?? Data()
        } catch {
            throw Failure(description: "cannot read \(path): \(error.localizedDescription)")
        }
        isCompressed = first.count >= 2 && first[first.startIndex] == 0x1f && first[first.startIndex + 1] == 0x8b
        if isCompressed {
            let channel = EmbeddedChannel(handler: NIOHTTPResponseDecompressor(limit: .none))
            inflater = channel
            do {
                let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Encoding": "gzip"])
                try channel.writeInbound(HTTPClientResponsePart.head(head))
                _ = try channel.readInbound(as: HTTPClientResponsePart.self)
                pending = try inflate(first)
            } catch {
                throw Failure(description: "\(path) is not a valid gzip file: \(error)")
            }
        } else {
            inflater = nil
            pending = Array(first)
        }
        if first.isEmpty { finished = true }
    }

    deinit {
        try? handle.close()
        _ = try? inflater?.finish()
    }

    /// The next chunk of the file's (inflated) bytes; nil at the end.
    func next() throws(Failure) -> [UInt8]? {
        while pending.isEmpty {
            guard !finished else { return nil }
            let data: Data
            do {
                data = try handle.read(upToCount: Self.chunkSize) ?? Data()
            } catch {
                throw Failure(description: "cannot read the export: \(error.localizedDescription)")
            }
            do {
                if data.isEmpty {
                    finished = true
                    pending = try end()
                } else {
                    pending = inflater == nil ? Array(data) : try inflate(data)
                }
            } catch let failure as Failure {
                throw failure
            } catch {
                throw Failure(description: "the gzip stream is corrupt: \(error)")
            }
        }
        defer { pending = [] }
        return pending
    }

    private func inflate(_ data: Data) throws -> [UInt8] {
        guard let inflater, !data.isEmpty else { return [] }
        try inflater.writeInbound(HTTPClientResponsePart.body(ByteBuffer(bytes: data)))
        return try drain(inflater)
    }

    private func end() throws -> [UInt8] {
        guard let inflater else { return [] }
        try inflater.writeInbound(HTTPClientResponsePart.end(nil))
        let rest = try drain(inflater)
        try inflater.throwIfErrorCaught()
        return rest
    }

    private func drain(_ channel: EmbeddedChannel) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let part = try channel.readInbound(as: HTTPClientResponsePart.self) {
            if case .body(let buffer) = part { bytes += buffer.readableBytesView }
        }
        return bytes
    }
}
