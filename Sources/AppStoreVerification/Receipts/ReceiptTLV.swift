/// A minimal BER reader for a receipt's payload: the attribute SETs and each attribute's small
/// DER value, read straight from the bytes (no node trees: the payload holds hundreds of tiny
/// elements, and building swift-asn1's trees for them was most of a receipt's validation time).
///
/// It accepts what BER allows for these shapes — definite lengths in short or long form, and the
/// indefinite form for constructed elements — and refuses the rest: tag numbers in the long form,
/// primitive elements of indefinite length, lengths past the input, nesting deeper than 16, and
/// anything after the outermost element.
struct ReceiptTLV {
    /// The identifier octet (class, constructed bit, tag number 0…30).
    let identifier: UInt8
    /// Where the content octets lie in the input (for an indefinite length: up to the
    /// end-of-contents octets, which are not included).
    let content: Range<Int>
    /// Where the whole element ends in the input.
    let end: Int

    var isConstructed: Bool { identifier & 0x20 != 0 }
    /// The identifier without the constructed bit: universal 2 INTEGER, 4 OCTET STRING, 16
    /// SEQUENCE, 17 SET, 12/19/22/26 strings.
    var tag: UInt8 { identifier & 0xDF }

    struct Malformed: Error {}

    static let maximumDepth = 16

    /// The one element `bytes` holds, which must take all of it.
    static func whole(_ bytes: ArraySlice<UInt8>) throws(Malformed) -> ReceiptTLV {
        let element = try read(bytes, at: bytes.startIndex, depth: 0)
        guard element.end == bytes.endIndex else { throw Malformed() }
        return element
    }

    /// The element that starts at `start`.
    static func read(_ bytes: ArraySlice<UInt8>, at start: Int, depth: Int) throws(Malformed) -> ReceiptTLV {
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
                    return ReceiptTLV(identifier: identifier, content: contentStart..<index, end: index + 2)
                }
                index = try read(bytes, at: index, depth: depth + 1).end
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
        let element = ReceiptTLV(identifier: identifier, content: index..<(index + length), end: index + length)
        if element.isConstructed {
            // Its children must tile the content exactly.
            var child = element.content.lowerBound
            while child < element.content.upperBound { child = try read(bytes, at: child, depth: depth + 1).end }
            guard child == element.content.upperBound else { throw Malformed() }
        }
        return element
    }

    /// The children of a constructed element.
    func children(in bytes: ArraySlice<UInt8>, depth: Int = 1) throws(Malformed) -> [ReceiptTLV] {
        guard isConstructed else { throw Malformed() }
        var children: [ReceiptTLV] = []
        var index = content.lowerBound
        while index < content.upperBound {
            let child = try Self.read(bytes, at: index, depth: depth)
            children.append(child)
            index = child.end
        }
        return children
    }
}
