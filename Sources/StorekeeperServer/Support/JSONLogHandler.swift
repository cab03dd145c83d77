import Foundation
import Logging
import StorekeeperStore
import Synchronization

/// `serve --log-format json`: one JSON object per line, for log collectors that read
/// containers' standard output (docs/observability.md).
///
/// Each line: `timestamp` (RFC 3339 in UTC with milliseconds, ``Timestamp``), `level`, `label`,
/// `message`, then the logger's metadata flattened as fields (a nested dictionary or list as a
/// JSON object or array), the metadata provider's (`trace_id`, `span_id` while a span is active
/// when tracing is on), and an `error` when one was logged. A metadata key that would hide one of
/// the four fields is written as `metadata.<key>`. Every string is escaped (quotes, backslashes,
/// every control character), so a message holding anything is still one valid line.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: Output

    /// Where lines go: a whole line (its newline included) per call.
    public struct Output: Sendable {
        let write: @Sendable (String) -> Void

        public init(write: @escaping @Sendable (String) -> Void) { self.write = write }

        /// Standard output, a line at a time (concurrent loggers never interleave within a line).
        public static let standardOutput = Output { line in
            let data = Data(line.utf8)
            lock.withLock { _ in FileHandle.standardOutput.write(data) }
        }

        private static let lock = Mutex<Void>(())
    }

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil, output: Output = .standardOutput) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        output.write(line(event, at: Date()))
    }

    /// The line (with its newline) `event` is written as at `date`.
    func line(_ event: LogEvent, at date: Date) -> String {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, provided in provided } }
        if let own = event.metadata { fields.merge(own) { _, own in own } }
        var text = "{\"timestamp\":" + Self.quoted(Timestamp.string(from: date))
        text += ",\"level\":" + Self.quoted(event.level.rawValue)
        text += ",\"label\":" + Self.quoted(label)
        text += ",\"message\":" + Self.quoted(event.message.description)
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            let name = Self.reserved.contains(key) ? "metadata." + key : key
            text += "," + Self.quoted(name) + ":" + Self.json(value)
        }
        if let error = event.error { text += ",\"error\":" + Self.quoted(String(describing: error)) }
        return text + "}\n"
    }

    private static let reserved: Set<String> = ["timestamp", "level", "label", "message", "error"]

    /// A metadata value as JSON: strings as strings, dictionaries as objects, lists as arrays.
    static func json(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): quoted(text)
        case .stringConvertible(let convertible): quoted(convertible.description)
        case .dictionary(let dictionary):
            "{" + dictionary.sorted { $0.key < $1.key }.map { quoted($0.key) + ":" + json($0.value) }.joined(separator: ",") + "}"
        case .array(let values): "[" + values.map(json).joined(separator: ",") + "]"
        }
    }

    /// `text` as a JSON string: `"` and `\` escaped, every control character (U+0000–U+001F,
    /// U+007F) and the line separators U+2028 and U+2029 as escapes, so the line stays one line.
    static func quoted(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
