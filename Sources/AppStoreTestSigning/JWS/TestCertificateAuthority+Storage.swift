import Crypto
import Foundation
import X509

extension TestCertificateAuthority {
    /// The files an authority is stored as: DER certificates and PEM (PKCS #8) private keys.
    public enum FileName {
        public static let rootCertificate = "root.der"
        public static let intermediateCertificate = "intermediate.der"
        public static let leafCertificate = "leaf.der"
        public static let rootKey = "root-key.pem"
        public static let intermediateKey = "intermediate-key.pem"
        public static let leafKey = "leaf-key.pem"
    }

    /// Writes the authority to `directory` (created if needed), so another process, such as
    /// `storekeeper jws sign`, can sign with the same chain: a folder `0700` and files `0600`
    /// (``PrivateFiles``), since the keys sign what the server trusts.
    public func save(to directory: URL) throws {
        try PrivateFiles.createDirectory(directory)
        let files: [(String, Data)] = [
            (FileName.rootCertificate, rootCertificateDER), (FileName.intermediateCertificate, intermediateCertificateDER),
            (FileName.leafCertificate, leafCertificateDER), (FileName.rootKey, Data(rootKey.pemRepresentation.utf8)),
            (FileName.intermediateKey, Data(intermediateKey.pemRepresentation.utf8)), (FileName.leafKey, Data(leafKey.pemRepresentation.utf8)),
        ]
        for (name, data) in files { try PrivateFiles.write(data, to: directory.appendingPathComponent(name)) }
    }

    /// Reads an authority written by ``save(to:)``.
    ///
    /// - Throws: ``LoadError`` when a file is missing or unreadable, or a key does not belong to
    ///   its certificate.
    public static func load(from directory: URL) throws -> TestCertificateAuthority {
        func read(_ name: String) throws -> Data {
            do {
                return try Data(contentsOf: directory.appendingPathComponent(name))
            } catch {
                throw LoadError(code: .unreadableFile, message: "cannot read \(name) in \(directory.path): \(error)")
            }
        }
        func certificate(_ name: String) throws -> Certificate {
            do {
                return try Certificate(derEncoded: Array(try read(name)))
            } catch let error as LoadError {
                throw error
            } catch {
                throw LoadError(code: .malformedFile, message: "\(name) is not a DER certificate: \(error)")
            }
        }
        func pem(_ name: String) throws -> String {
            String(decoding: try read(name), as: UTF8.self)
        }
        let root = try certificate(FileName.rootCertificate)
        let intermediate = try certificate(FileName.intermediateCertificate)
        let leaf = try certificate(FileName.leafCertificate)
        let rootKey: P384.Signing.PrivateKey
        let intermediateKey: P384.Signing.PrivateKey
        let leafKey: P256.Signing.PrivateKey
        do {
            rootKey = try P384.Signing.PrivateKey(pemRepresentation: pem(FileName.rootKey))
            intermediateKey = try P384.Signing.PrivateKey(pemRepresentation: pem(FileName.intermediateKey))
            leafKey = try P256.Signing.PrivateKey(pemRepresentation: pem(FileName.leafKey))
        } catch let error as LoadError {
            throw error
        } catch {
            throw LoadError(code: .malformedFile, message: "a private key in \(directory.path) is not PEM of the expected curve: \(error)")
        }
        guard root.publicKey == Certificate.PublicKey(rootKey.publicKey),
            intermediate.publicKey == Certificate.PublicKey(intermediateKey.publicKey),
            leaf.publicKey == Certificate.PublicKey(leafKey.publicKey)
        else {
            throw LoadError(code: .keyMismatch, message: "a private key in \(directory.path) does not match its certificate")
        }
        return TestCertificateAuthority(
            rootKey: rootKey, intermediateKey: intermediateKey, leafKey: leafKey,
            root: root, intermediate: intermediate, leaf: leaf
        )
    }

    /// Why a stored authority could not be loaded.
    public struct LoadError: Error, Hashable, Sendable, CustomStringConvertible {
        public var code: Code
        public var message: String

        public init(code: Code, message: String) {
            self.code = code
            self.message = message
        }

        public struct Code: RawRepresentable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }

            public static let unreadableFile = Code(rawValue: "unreadable_file")
            public static let malformedFile = Code(rawValue: "malformed_file")
            public static let keyMismatch = Code(rawValue: "key_mismatch")
        }

        public var description: String { "\(code.rawValue): \(message)" }
    }
}
