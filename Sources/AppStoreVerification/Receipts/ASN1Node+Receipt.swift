import SwiftASN1

/// Small structural accessors used to walk BER/DER receipts without trusting their shape.
extension ASN1Node {
    /// The children of a constructed node carrying `identifier`.
    func children(_ identifier: ASN1Identifier, _ what: String) throws(ReceiptDecodingFailure) -> [ASN1Node] {
        guard self.identifier == identifier, case .constructed(let nodes) = content else {
            throw ReceiptDecodingFailure("\(what): expected a constructed \(identifier)")
        }
        return Array(nodes)
    }

    /// The content octets of a primitive node carrying `identifier`.
    func primitive(_ identifier: ASN1Identifier, _ what: String) throws(ReceiptDecodingFailure) -> ArraySlice<UInt8> {
        guard self.identifier == identifier, case .primitive(let bytes) = content else {
            throw ReceiptDecodingFailure("\(what): expected a primitive \(identifier)")
        }
        return bytes
    }

    func objectIdentifier(_ what: String) throws(ReceiptDecodingFailure) -> ASN1ObjectIdentifier {
        do {
            return try ASN1ObjectIdentifier(berEncoded: self)
        } catch {
            throw ReceiptDecodingFailure("\(what): not an object identifier")
        }
    }

    /// A small non-negative or negative INTEGER that fits in `Int`.
    func smallInteger(_ what: String) throws(ReceiptDecodingFailure) -> Int {
        let bytes = try primitive(.integer, what)
        guard let value = ReceiptIntegerDecoding.int64(bytes), let int = Int(exactly: value) else {
            throw ReceiptDecodingFailure("\(what): integer out of range")
        }
        return int
    }

    /// The bytes of an OCTET STRING, joining the segments of a constructed (BER) one.
    func octetStringBytes(_ what: String, depth: Int = 0) throws(ReceiptDecodingFailure) -> [UInt8] {
        guard identifier == .octetString, depth < 8 else {
            throw ReceiptDecodingFailure("\(what): expected an OCTET STRING")
        }
        switch content {
        case .primitive(let bytes):
            return Array(bytes)
        case .constructed(let segments):
            var joined: [UInt8] = []
            for segment in segments {
                joined += try segment.octetStringBytes(what, depth: depth + 1)
            }
            return joined
        }
    }

    /// `AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }`.
    func algorithmIdentifier(_ what: String) throws(ReceiptDecodingFailure) -> ASN1ObjectIdentifier {
        let parts = try children(.sequence, what)
        guard let first = parts.first, parts.count <= 2 else {
            throw ReceiptDecodingFailure("\(what): malformed AlgorithmIdentifier")
        }
        // The digest and RSA algorithms receipts use take no parameters: absent or NULL.
        if parts.count == 2 {
            guard parts[1].identifier == .null, case .primitive(let bytes) = parts[1].content, bytes.isEmpty else {
                throw ReceiptDecodingFailure("\(what): unexpected AlgorithmIdentifier parameters")
            }
        }
        return try first.objectIdentifier(what)
    }
}
