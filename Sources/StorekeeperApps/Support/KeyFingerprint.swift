import Foundation
import StorekeeperStore

/// A short, non-reversible name for a secret, for audit entries and logs: the first 8 hex
/// digits of its SHA-256.
package enum KeyFingerprint {
    package static func of(_ secret: String) -> String {
        "key:" + StableDigest.hex(of: Data(secret.utf8)).prefix(8)
    }
}
