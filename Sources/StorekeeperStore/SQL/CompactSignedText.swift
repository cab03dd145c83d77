import AppStoreJOSE
import Foundation

/// Signed text (a JWS, or a V2 notification's body `{"signedPayload":"<JWS>"}`) as the store
/// keeps it: the same bytes back, in a fifth of the space.
///
/// A JWS from the App Store is three base64url segments. Its header (3.7 kB: the certificate
/// chain) is the same for every JWS a signing key made, so it is stored once, in
/// `signing_headers`, by its SHA-256; its payload is stored decoded (base64 spends four bytes on
/// three), and inside a notification's payload the nested transaction and renewal info carry
/// the same header again, each replaced by one byte. A 15.5 kB notification body becomes
/// about 1.5 kB and a 4.4 kB transaction about 0.7 kB: under PostgreSQL's TOAST threshold
/// (2 kB), so the row is written whole in the table instead of as nine chunks and their index
/// entries, and under SQLite's overflow limit.
///
/// The stored form starts with U+0001, which no JSON text and no JWS holds:
/// - `\u{1}J<digest><signature>.<payload>`: a JWS;
/// - `\u{1}B<digest><signature>.<payload>`: a body holding only a JWS;
/// - `\u{1}R<text>`: text that itself starts with U+0001, kept as it is.
///
/// `<digest>` is 64 hex digits; `<payload>` is the decoded payload with each occurrence of the
/// header as U+0002. Anything else (text that is not such a JWS, a payload that is not UTF-8
/// text, a segment that does not decode back to itself) is stored as it is, and text stored
/// before this form existed is read as it is.
enum CompactSignedText {
    static let marker: Character = "\u{1}"
    static let bodyPrefix = Array(#"{"signedPayload":""#.utf8)
    static let bodySuffix = Array(#""}"#.utf8)
    private static let (markByte, headerByte, dot) = (UInt8(1), UInt8(2), UInt8(ascii: "."))
    private static let (jwsKind, bodyKind, rawKind) = (UInt8(ascii: "J"), UInt8(ascii: "B"), UInt8(ascii: "R"))

    /// A header stored once, by digest.
    struct Header: Sendable, Hashable {
        var digest: String
        var text: String
    }

    /// The stored form of `text`, and the header it refers to (to be stored with it). Checked:
    /// a form that does not give `text` back is not used. Works on the UTF-8 bytes throughout.
    static func compact(_ text: String) -> (stored: String, header: Header?) {
        let bytes = Array(text.utf8)
        var compacted: ([UInt8], Header)?
        if bytes.count > bodyPrefix.count + bodySuffix.count, bytes.starts(with: bodyPrefix), bytes.suffix(bodySuffix.count).elementsEqual(bodySuffix)
        {
            compacted = compactJWS(bytes[bodyPrefix.count..<bytes.count - bodySuffix.count]).map { ([markByte, bodyKind] + $0.0, $0.1) }
        } else {
            compacted = compactJWS(bytes[...]).map { ([markByte, jwsKind] + $0.0, $0.1) }
        }
        if let (stored, header) = compacted, let back = try? expand(stored[...], header: { $0 == header.digest ? Array(header.text.utf8) : nil }),
            back == bytes
        {
            return (String(decoding: stored, as: UTF8.self), header)
        }
        return (bytes.first == markByte ? "\(marker)R" + text : text, nil)
    }

    /// The digest of the header `stored` refers to, if any.
    static func headerDigest(of stored: String) -> String? {
        let utf8 = stored.utf8
        guard utf8.count > 66, utf8.first == markByte else { return nil }
        let kind = utf8[utf8.index(after: utf8.startIndex)]
        guard kind == jwsKind || kind == bodyKind else { return nil }
        let start = utf8.index(utf8.startIndex, offsetBy: 2)
        return String(decoding: utf8[start..<utf8.index(start, offsetBy: 64)], as: UTF8.self)
    }

    /// The text `stored` holds; `header` gives a header by digest.
    static func expand(_ stored: String, header: (String) -> String?) throws -> String {
        guard stored.utf8.first == markByte else { return stored }
        return String(decoding: try expand(Array(stored.utf8)[...], header: { header($0).map { Array($0.utf8) } }), as: UTF8.self)
    }

    private static func expand(_ stored: ArraySlice<UInt8>, header: (String) -> [UInt8]?) throws -> [UInt8] {
        var rest = stored.dropFirst()
        guard let kind = rest.first else { throw corrupt("an empty stored form") }
        rest = rest.dropFirst()
        if kind == rawKind { return Array(rest) }
        guard kind == jwsKind || kind == bodyKind, rest.count > 64 else { throw corrupt("an unknown stored form") }
        let digest = String(decoding: rest.prefix(64), as: UTF8.self)
        rest = rest.dropFirst(64)
        guard let dotIndex = rest.firstIndex(of: dot) else { throw corrupt("a stored JWS without its payload") }
        guard let headerBytes = header(digest) else { throw corrupt("a stored JWS whose header \(digest.prefix(12))… is missing") }
        var payload: [UInt8] = []
        payload.reserveCapacity(rest.count * 2)
        for byte in rest[(dotIndex + 1)...] {
            if byte == headerByte { payload += headerBytes } else { payload.append(byte) }
        }
        var jws = kind == bodyKind ? bodyPrefix : []
        jws.reserveCapacity(headerBytes.count + payload.count * 4 / 3 + 200)
        jws += headerBytes
        jws.append(dot)
        jws += base64URL(payload)
        jws.append(dot)
        jws += rest[rest.startIndex..<dotIndex]
        if kind == bodyKind { jws += bodySuffix }
        return jws
    }

    /// `digest` + signature + "." + payload, when `jws` is a JWS whose payload decodes to text
    /// without U+0001 or U+0002, nor U+0000 (which a database's text cannot hold).
    private static func compactJWS(_ jws: ArraySlice<UInt8>) -> ([UInt8], Header)? {
        guard let first = jws.firstIndex(of: dot), let second = jws[(first + 1)...].firstIndex(of: dot),
            !jws[(second + 1)...].contains(dot)
        else { return nil }
        let (headerBytes, payloadSegment, signature) = (jws[..<first], jws[(first + 1)..<second], jws[(second + 1)...])
        guard !headerBytes.isEmpty, !payloadSegment.isEmpty, !signature.isEmpty,
            isBase64URL(headerBytes), isBase64URL(payloadSegment), isBase64URL(signature),
            let payload = decodeBase64URL(payloadSegment), !payload.contains(markByte), !payload.contains(headerByte), !payload.contains(0),
            String(validating: payload, as: UTF8.self) != nil
        else { return nil }
        let headerText = String(decoding: headerBytes, as: UTF8.self)
        let digest = StableDigest.hex(of: Data(headerBytes))
        var form = Array(digest.utf8) + signature
        form.append(dot)
        form.reserveCapacity(form.count + payload.count)
        // The header's occurrences in the payload (the nested JWSs'), each as one byte.
        var index = payload.startIndex
        while index < payload.endIndex {
            if payload[index] == headerBytes.first, payload.count - index >= headerBytes.count,
                payload[index..<index + headerBytes.count].elementsEqual(headerBytes)
            {
                form.append(headerByte)
                index += headerBytes.count
            } else {
                form.append(payload[index])
                index += 1
            }
        }
        return (form, Header(digest: digest, text: headerText))
    }

    private static func isBase64URL(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { byte in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    private static func decodeBase64URL(_ segment: ArraySlice<UInt8>) -> [UInt8]? {
        segment.withUnsafeBufferPointer { Base64URL.decode(segment: $0) }
    }

    private static func base64URL(_ bytes: [UInt8]) -> [UInt8] {
        Array(Base64URL.encode(bytes).utf8)
    }

    private static func corrupt(_ message: String) -> StoreError {
        StoreError(code: .corruptRow, message: "signed text: \(message)")
    }
}
