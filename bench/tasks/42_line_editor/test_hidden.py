from solution import LineEditor


def test_start_text_and_default() -> None:
    assert LineEditor("hello").text() == "hello"
    assert LineEditor().text() == ""


def test_write_appends() -> None:
    editor = LineEditor("ab")
    editor.write("cd")
    editor.write("")
    editor.write("e")
    assert editor.text() == "abcde"


def test_delete_removes_from_the_end() -> None:
    editor = LineEditor("abcdef")
    editor.delete(2)
    assert editor.text() == "abcd"
    editor.delete(10)
    assert editor.text() == ""


def test_undo_steps_back_one_change_at_a_time() -> None:
    editor = LineEditor("ab")
    editor.write("cd")
    editor.delete(3)
    assert editor.text() == "a"
    editor.undo()
    assert editor.text() == "abcd"
    editor.undo()
    assert editor.text() == "ab"


def test_undo_with_nothing_to_undo_does_nothing() -> None:
    editor = LineEditor("start")
    editor.undo()
    assert editor.text() == "start"
    editor.write("!")
    editor.undo()
    editor.undo()
    assert editor.text() == "start"


def test_undo_of_a_large_delete_restores_everything() -> None:
    editor = LineEditor("xyz")
    editor.delete(99)
    editor.undo()
    assert editor.text() == "xyz"


def test_editors_are_independent() -> None:
    first, second = LineEditor("a"), LineEditor("b")
    first.write("1")
    second.delete(1)
    assert first.text() == "a1"
    assert second.text() == ""
