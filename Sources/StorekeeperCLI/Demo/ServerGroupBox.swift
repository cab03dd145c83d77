import ServiceLifecycle

/// The server's service group once it exists, so a failure can stop it.
final class ServerGroupBox {
    var group: ServiceGroup?
}
