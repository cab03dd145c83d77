import SwiftASN1

/// A minimal BER reader for receipts: the PKCS#7 container and the payload's attribute SETs,
/// read straight from the bytes (no node trees: a receipt holds hundreds of tiny elements, and
/// building swift-asn1's trees for them was most of a receipt's validation time).
///
/// It accepts what BER allows for these shapes — definite lengths in short or long form, and the
/// indefinite form for constructed elements — and refuses the rest: tag numbers in the long form,
/// primitive elements of indefinite length, lengths past the input, nesting deeper than 16, and
/// anything after the outermost element.
///
/// A deep read checks that the children of every constructed element tile its content, all the
/// way down; a shallow one only that a definite-length element fits in its input (an
/// indefinite-length one is always walked to find its end). The container is read shallowly so
/// that the embedded certificates are not walked on every receipt: X.509 parsing checks them.
struct ReceiptTLV {
    /// The identifier octet (class, constructed bit, tag number 0…30).
    let identifier: UInt8
    /// Where the element starts in the input (its identifier octet).
    let start: Int
    /// Where the content octets lie in the input (for an indefinite length: up to the
    /// end-of-contents octets, which are not included).
    let content: Range<Int>
    /// Where the whole element ends in the input.
    let end: Int

    var isConstructed: Bool { identifier & 0x20 != 0 }
    /// The identifier without the constructed bit: universal 2 INTEGER, 4 OCTET STRING, 6 OBJECT
    /// IDENTIFIER, 16 SEQUENCE, 17 SET, 12/19/22/26 strings.
    var tag: UInt8 { identifier & 0xDF }
    /// Whether the length is in the definite form (DER's only form).
    var isDefinite: Bool { content.upperBound == end }
    /// The whole element: identifier, length and content octets.
    var element: Range<Int> { start..<end }

    struct Malformed: Error {}

    static let maximumDepth = 16

    /// The one element `bytes` holds, which must take all of it.
    static func whole(_ bytes: ArraySlice<UInt8>, deep: Bool = true) throws(Malformed) -> ReceiptTLV {
        let element = try read(bytes, at: bytes.startIndex, depth: 0, deep: deep)
        guard element.end == bytes.endIndex else { throw Malformed() }
        return element
    }

    /// The element that starts at `start`.
    static func read(_ bytes: ArraySlice<UInt8>, at start: Int, depth: Int, deep: Bool = true) throws(Malformed) -> ReceiptTLV {
        guard depth <= maximumDepth, start < bytes.endIndex else { throw Malformed() }
        let identifier = bytes[start]
        guard identifier & 0x1F != 0x1F else { throw Malformed() }
        var index = start + 1
        guard index < bytes.endIndex else { throw Malformed() }
        let first = bytes[index]
        index += 1
        if first == 0x80 {
            // Indefinite length: constructed only; children until the end-of-contents octets.
            guard identifier & 0x20 != 0 else { throw Malformed() }
            let contentStart = index
            while true {
                guard index + 1 < bytes.endIndex else { throw Malformed() }
                if bytes[index] == 0, bytes[index + 1] == 0 {
                    return ReceiptTLV(identifier: identifier, start: start, content: contentStart..<index, end: index + 2)
                }
                index = try read(bytes, at: index, depth: depth + 1, deep: deep).end
            }
        }
        var length = 0
        if first & 0x80 == 0 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard (1...4).contains(count), index + count <= bytes.endIndex else { throw Malformed() }
            for offset in 0..<count { length = (length << 8) | Int(bytes[index + offset]) }
            index += count
        }
        guard length <= bytes.endIndex - index else { throw Malformed() }
        let element = ReceiptTLV(identifier: identifier, start: start, content: index..<(index + length), end: index + length)
        if deep, element.isConstructed {
            // Its children must tile the content exactly.
            var child = element.content.lowerBound
            while child < element.content.upperBound { child = try read(bytes, at: child, depth: depth + 1).end }
            guard child == element.content.upperBound else { throw Malformed() }
        }
        return element
    }

    /// The children of a constructed element; a shallow read still requires them to tile its content.
    func children(in bytes: ArraySlice<UInt8>, depth: Int = 1, deep: Bool = true) throws(Malformed) -> [ReceiptTLV] {
        guard isConstructed else { throw Malformed() }
        var children: [ReceiptTLV] = []
        var index = content.lowerBound
        while index < content.upperBound {
            let child = try Self.read(bytes, at: index, depth: depth, deep: deep)
            children.append(child)
            index = child.end
        }
        guard index == content.upperBound else { throw Malformed() }
        return children
    }
}

/// Typed reads of the elements receipts use, refusing anything else with a ``ReceiptDecodingFailure``
/// that names the field (built only on failure: a payload has hundreds of fields).
extension ReceiptTLV {
    /// The one element `bytes` holds, or a failure naming `what`.
    static func whole(_ bytes: ArraySlice<UInt8>, deep: Bool = true, _ what: @autoclosure () -> String) throws(ReceiptDecodingFailure) -> ReceiptTLV {
        do {
            return try whole(bytes, deep: deep)
        } catch {
            throw ReceiptDecodingFailure("\(what()): not ASN.1")
        }
    }

    /// The children of this element, which must be constructed and carry `identifier` (the whole
    /// identifier octet: 0x30 SEQUENCE, 0x31 SET, 0xA0 `[0]`).
    func children(
        _ identifier: UInt8, in bytes: ArraySlice<UInt8>, _ what: @autoclosure () -> String, depth: Int = 1, deep: Bool = true
    ) throws(ReceiptDecodingFailure) -> [ReceiptTLV] {
        guard self.identifier == identifier, let children = try? children(in: bytes, depth: depth, deep: deep) else {
            throw ReceiptDecodingFailure("\(what()): expected a constructed element 0x\(String(identifier, radix: 16))")
        }
        return children
    }

    /// The content octets of a primitive element carrying `identifier`.
    func primitive(
        _ identifier: UInt8, in bytes: ArraySlice<UInt8>, _ what: @autoclosure () -> String
    ) throws(ReceiptDecodingFailure) -> ArraySlice<UInt8> {
        guard self.identifier == identifier else {
            throw ReceiptDecodingFailure("\(what()): expected a primitive element 0x\(String(identifier, radix: 16))")
        }
        return bytes[content]
    }

    /// A small non-negative or negative INTEGER that fits in `Int`.
    func smallInteger(in bytes: ArraySlice<UInt8>, _ what: @autoclosure () -> String) throws(ReceiptDecodingFailure) -> Int {
        guard let value = ReceiptIntegerDecoding.int64(try primitive(0x02, in: bytes, what())), let int = Int(exactly: value) else {
            throw ReceiptDecodingFailure("\(what()): integer out of range")
        }
        return int
    }

    func objectIdentifier(in bytes: ArraySlice<UInt8>, _ what: @autoclosure () -> String) throws(ReceiptDecodingFailure) -> ASN1ObjectIdentifier {
        let content = try primitive(0x06, in: bytes, what())
        if let known = ReceiptObjectIdentifiers.known(content: content) { return known }
        do {
            return try ASN1ObjectIdentifier(berEncoded: bytes[element])
        } catch {
            throw ReceiptDecodingFailure("\(what()): not an object identifier")
        }
    }

    /// The bytes of an OCTET STRING: its content, or the segments of a constructed (BER) one joined.
    func octetString(in bytes: ArraySlice<UInt8>, _ what: @autoclosure () -> String, depth: Int) throws(ReceiptDecodingFailure) -> ArraySlice<UInt8> {
        guard tag == 0x04 else { throw ReceiptDecodingFailure("\(what()): expected an OCTET STRING") }
        guard isConstructed else { return bytes[content] }
        guard let segments = try? children(in: bytes, depth: depth) else {
            throw ReceiptDecodingFailure("\(what()): expected an OCTET STRING")
        }
        var joined: [UInt8] = []
        for segment in segments {
            joined += try segment.octetString(in: bytes, what(), depth: depth + 1)
        }
        return joined[...]
    }

    /// `AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }`.
    func algorithmIdentifier(
        in bytes: ArraySlice<UInt8>, _ what: @autoclosure () -> String, depth: Int
    ) throws(ReceiptDecodingFailure) -> ASN1ObjectIdentifier {
        let parts = try children(0x30, in: bytes, what(), depth: depth)
        guard let first = parts.first, parts.count <= 2 else {
            throw ReceiptDecodingFailure("\(what()): malformed AlgorithmIdentifier")
        }
        // The digest and RSA algorithms receipts use take no parameters: absent or NULL.
        if parts.count == 2 {
            guard parts[1].identifier == 0x05, parts[1].content.isEmpty else {
                throw ReceiptDecodingFailure("\(what()): unexpected AlgorithmIdentifier parameters")
            }
        }
        return try first.objectIdentifier(in: bytes, what())
    }
}
