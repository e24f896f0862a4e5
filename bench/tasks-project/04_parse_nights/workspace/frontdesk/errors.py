"""Exceptions of the booking code."""


class BookingError(Exception):
    """Base class of every error the booking code raises."""


class InvalidBookingInput(BookingError):
    """A field of the booking form could not be read."""


class RoomUnavailable(BookingError):
    """The requested room is taken for some of the nights."""
