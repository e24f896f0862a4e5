"""Parcel pricing of the courier service."""
