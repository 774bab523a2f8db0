"""Prints PyTorch's run-time error messages for the cases in
tests/pytorch_messages.rs (the expected strings there are this output).

Run with the project venv: /work/pyenv/bin/python scripts/pytorch_messages.py
"""
import torch


def t(*s):
    return torch.ones(*s)


def m(*s):
    return torch.ones(*s, dtype=torch.bool)


def L(*s):
    return torch.zeros(*s, dtype=torch.long)


def show(name, f):
    try:
        f()
        print(name, "OK")
    except Exception as e:
        print(name, "=>", repr(str(e).split("\n")[0]))


CASES = [
    ("add_ out", lambda: t(1, 4).add_(t(3, 4))),
    ("add_ mism", lambda: t(2, 3).add_(t(2))),
    ("mul_ 5x3", lambda: t(2, 1, 5).mul_(t(3))),
    ("sub_ rank", lambda: t(4).sub_(t(3, 4))),
    ("atan2_ rank mism", lambda: t(1, 3, 1).atan2_(t(3, 1, 7))),
    ("maximum out", lambda: t(2, 3).maximum(t(2))),
    ("addcmul_ out", lambda: t(1, 4).addcmul_(t(3, 4), t(4))),
    ("addcmul_ out2", lambda: t(1, 4).addcmul_(t(4), t(3, 4))),
    ("addcmul_ mism", lambda: t(2, 3).addcmul_(t(3), t(2))),
    ("addcmul_ mism3", lambda: t(2, 3).addcmul_(t(2, 1), t(5))),
    ("addcmul mism", lambda: t(2, 3).addcmul(t(2), t(2))),
    ("addcdiv_ out", lambda: t(1, 4).addcdiv_(t(3, 4), t(4))),
    ("lerp_ out", lambda: t(1, 4).lerp_(t(3, 4), t(4))),
    ("lerp_ mism", lambda: t(2, 3).lerp_(t(2), t(3))),
    ("lerp_ scalar out", lambda: t(1, 4).lerp_(t(3, 4), 0.5)),
    ("lerp_ scalar mism", lambda: t(2, 3).lerp_(t(2), 0.5)),
    ("masked_fill_ out", lambda: t(1, 4).masked_fill_(m(3, 4), 0.0)),
    ("masked_fill_ mism", lambda: t(2, 3).masked_fill_(m(2), 0.0)),
    ("masked_fill mism", lambda: t(2, 3).masked_fill(m(2), 0.0)),
    ("masked_fill mism2", lambda: t(2).masked_fill(m(2, 3), 0.0)),
    ("masked_select mism", lambda: t(2, 3).masked_select(m(2))),
    ("masked_select mism2", lambda: t(2).masked_select(m(2, 3))),
    ("masked_scatter mism", lambda: t(2, 3).masked_scatter(m(2), t(6))),
    ("masked_scatter_ mism", lambda: t(2, 3).masked_scatter_(m(2), t(6))),
    ("masked_scatter few", lambda: t(2, 3).masked_scatter(m(2, 3), t(5))),
    ("expand", lambda: t(3, 1, 7).expand(1, 3, 1)),
    ("broadcast_to", lambda: t(3, 1, 7).broadcast_to((3, 3, 1))),
    ("expand -1", lambda: t(3, 1).expand(-1, 4, 5)),
    ("addmm self", lambda: torch.addmm(t(3), t(2, 4), t(4, 5))),
    ("mm", lambda: torch.mm(t(1, 2), t(1, 2))),
    ("mm self", lambda: torch.mm(t(2), t(2, 2))),
    ("mm mat2", lambda: torch.mm(t(2, 2), t(2))),
    ("addmm", lambda: torch.addmm(t(2, 2), t(1, 2), t(1, 2))),
    ("addmm mat1", lambda: torch.addmm(t(2, 2), t(2), t(2, 2))),
    ("addmm mat2", lambda: torch.addmm(t(2, 2), t(2, 2), t(2))),
    ("matmul", lambda: torch.matmul(t(1, 2), t(1, 2))),
    ("matmul 1d2d", lambda: torch.matmul(t(2), t(3, 2))),
    ("matmul 3d@2d", lambda: torch.matmul(t(6, 2, 3), t(4, 5))),
    ("sum 0-d", lambda: torch.ones(()).sum(1)),
    ("softmax 0-d", lambda: torch.ones(()).softmax(1)),
    ("gather 0-d", lambda: torch.ones(()).gather(1, L(()))),
    ("gather rank+dim", lambda: t(2, 3).gather(3, L(2))),
    ("scatter_ rank+dim", lambda: t(2, 3).scatter_(3, L(2), t(2))),
    ("scatter_ value", lambda: t(2, 3).scatter_(-3, L(2), 1.0)),
    ("sum dims", lambda: t(2, 3).sum((0, 5))),
    ("argmax", lambda: t(2, 3).argmax(3)),
    ("log_softmax", lambda: t(2, 3).log_softmax(-3)),
    ("take_along_dim rank", lambda: torch.take_along_dim(t(2, 3), L(2), 1)),
]

for name, f in CASES:
    show(name, f)
