/// Records of delimited text (RFC 4180, with the delimiter chosen: `,` or `;`), read from byte
/// chunks as they come:
///
///     record = field *(delimiter field)
///     field  = escaped / non-escaped
///     escaped = DQUOTE *(any byte but DQUOTE / 2DQUOTE) DQUOTE   ; may span lines
///
/// Lines end with LF or CRLF; blank lines are skipped. A field with stray text after its closing
/// quote, or a quote left open at the end of the input, makes its record malformed.
struct DelimitedRecords {
    /// One record, with the line it starts on (1-based) or why it is malformed.
    struct Record: Equatable {
        var line: Int
        var fields: [String]
        var malformed: String?
    }

    var delimiter: UInt8
    private var field: [UInt8] = []
    private var fields: [String] = []
    private var inQuotes = false
    /// The previous byte closed a quoted field (or was the first of a doubled quote).
    private var quoteClosed = false
    private var fieldWasQuoted = false
    private var problem: String?
    private var line = 1
    private var recordLine = 1
    private var afterCR = false

    init(delimiter: UInt8) {
        self.delimiter = delimiter
    }

    static let quote = UInt8(ascii: "\"")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")

    /// Feeds bytes; calls `emit` for each record they complete.
    mutating func feed(_ bytes: [UInt8], _ emit: (Record) throws -> Void) rethrows {
        for byte in bytes {
            if inQuotes {
                if byte == Self.quote {
                    inQuotes = false
                    quoteClosed = true
                } else {
                    if byte == Self.newline { line += 1 }
                    field.append(byte)
                }
                continue
            }
            if quoteClosed {
                quoteClosed = false
                if byte == Self.quote {
                    // A doubled quote inside a quoted field.
                    field.append(byte)
                    inQuotes = true
                    continue
                }
            }
            switch byte {
            case Self.quote:
                if field.isEmpty && !fieldWasQuoted {
                    inQuotes = true
                    fieldWasQuoted = true
                } else {
                    problem = problem ?? "a quote inside an unquoted field (field \(fields.count + 1))"
                    field.append(byte)
                }
            case delimiter:
                endField()
            case Self.newline:
                if afterCR, !field.isEmpty, field.last == Self.carriageReturn { field.removeLast() }
                try endRecord(emit)
                line += 1
                recordLine = line
            default:
                if fieldWasQuoted, byte != Self.carriageReturn {
                    problem = problem ?? "text after a closing quote (field \(fields.count + 1))"
                }
                if fieldWasQuoted, byte == Self.carriageReturn {
                    afterCR = true
                    continue
                }
                field.append(byte)
            }
            afterCR = byte == Self.carriageReturn
        }
    }

    /// Ends the input: the last record (one without a final newline) and an open quote.
    mutating func finish(_ emit: (Record) throws -> Void) rethrows {
        if inQuotes { problem = problem ?? "a quote left open at the end of the file" }
        inQuotes = false
        quoteClosed = false
        if afterCR, field.last == Self.carriageReturn { field.removeLast() }
        try endRecord(emit)
    }

    private mutating func endField() {
        fields.append(String(decoding: field, as: UTF8.self))
        field.removeAll(keepingCapacity: true)
        fieldWasQuoted = false
        quoteClosed = false
    }

    private mutating func endRecord(_ emit: (Record) throws -> Void) rethrows {
        let blank = fields.isEmpty && field.isEmpty && !fieldWasQuoted
        if !blank {
            endField()
            try emit(Record(line: recordLine, fields: fields, malformed: problem))
        }
        fields.removeAll(keepingCapacity: true)
        field.removeAll(keepingCapacity: true)
        fieldWasQuoted = false
        quoteClosed = false
        problem = nil
    }
}
