import AppStoreModels
import Crypto
import Foundation

extension AppReceipt {
    /// The device hash Apple stores in attribute 5 for a device identifier:
    /// SHA-1(identifier's 16 bytes ‖ opaque value (4) ‖ raw DER value of the bundle id (2)).
    public func deviceHash(for deviceIdentifier: UUID) -> Data {
        var hasher = Insecure.SHA1()
        withUnsafeBytes(of: deviceIdentifier.uuid) { hasher.update(bufferPointer: $0) }
        hasher.update(data: opaqueValue ?? Data())
        hasher.update(data: bundleIdData)
        return Data(hasher.finalize())
    }

    /// Whether the receipt was issued to the device with this identifier.
    public func matchesDevice(_ deviceIdentifier: UUID) -> Bool {
        guard let sha1Hash else { return false }
        return deviceHash(for: deviceIdentifier) == sha1Hash
    }
}
