import Crypto
import Foundation
import X509

extension TestCertificateAuthority {
    /// The same root with a new intermediate (fresh key) and a new leaf under it, e.g. an
    /// intermediate without Apple's WWDR marker extension, to forge a chain that still ends at
    /// the trusted root.
    public func reissuingIntermediate(marker: Bool, name: String = "Storekeeper Test") throws -> TestCertificateAuthority {
        let intermediateKey = P384.Signing.PrivateKey()
        let intermediate = try Self.issueIntermediate(
            key: intermediateKey, root: root, rootKey: rootKey,
            notBefore: root.notValidBefore, notAfter: root.notValidAfter, marker: marker, name: name, ocspResponderURI: nil
        )
        let authority = TestCertificateAuthority(
            rootKey: rootKey, intermediateKey: intermediateKey, leafKey: leafKey,
            root: root, intermediate: intermediate, leaf: intermediate
        )
        return try authority.reissuingLeaf(notBefore: leaf.notValidBefore, notAfter: leaf.notValidAfter, name: name)
    }
}
