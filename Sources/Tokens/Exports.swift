@_exported import CancelCore
