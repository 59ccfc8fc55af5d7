import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { Modal, ModalHeader } from './Dialog';
import { MenuButton } from './MenuButton';
import { Toast } from './ui';

function Menu({ onPick }: { onPick: (item: string) => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <MenuButton label="Room menu" open={open} onOpenChange={setOpen} face="⋯">
        {['One', 'Two', 'Three'].map((item) => (
          <button
            key={item}
            type="button"
            role="menuitem"
            onClick={() => {
              onPick(item);
              setOpen(false);
            }}
          >
            {item}
          </button>
        ))}
      </MenuButton>
      <button type="button">Elsewhere</button>
    </>
  );
}

describe('MenuButton', () => {
  it('opens with focus on the first item, moves with the arrow keys, Home and End, and wraps', async () => {
    const user = userEvent.setup();
    render(<Menu onPick={() => undefined} />);
    const button = screen.getByRole('button', { name: 'Room menu' });
    expect(button).toHaveAttribute('aria-haspopup', 'menu');
    expect(button).toHaveAttribute('aria-expanded', 'false');
    await user.click(button);
    expect(button).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('menu', { name: 'Room menu' })).toBeInTheDocument();
    expect(screen.getByRole('menuitem', { name: 'One' })).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('menuitem', { name: 'Two' })).toHaveFocus();
    await user.keyboard('{End}');
    expect(screen.getByRole('menuitem', { name: 'Three' })).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('menuitem', { name: 'One' })).toHaveFocus();
    await user.keyboard('{ArrowUp}');
    expect(screen.getByRole('menuitem', { name: 'Three' })).toHaveFocus();
    await user.keyboard('{Home}');
    expect(screen.getByRole('menuitem', { name: 'One' })).toHaveFocus();
  });

  it('closes on Escape and on choosing an item, handing focus back to the button', async () => {
    const user = userEvent.setup();
    const onPick = jest.fn();
    render(<Menu onPick={onPick} />);
    const button = screen.getByRole('button', { name: 'Room menu' });
    await user.click(button);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
    expect(button).toHaveFocus();
    button.blur();
    await user.keyboard('{Tab}{ArrowDown}');
    expect(screen.getByRole('menuitem', { name: 'One' })).toHaveFocus();
    await user.keyboard('{ArrowDown}{Enter}');
    expect(onPick).toHaveBeenCalledWith('Two');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
    expect(button).toHaveFocus();
  });

  it('closes on a click elsewhere', async () => {
    const user = userEvent.setup();
    render(<Menu onPick={() => undefined} />);
    await user.click(screen.getByRole('button', { name: 'Room menu' }));
    await user.click(screen.getByRole('button', { name: 'Elsewhere' }));
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
  });
});

function Dialogs({ dismissible }: { dismissible: boolean }) {
  const [open, setOpen] = useState(false);
  const hide = dismissible ? () => setOpen(false) : undefined;
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      {open ? (
        <Modal labelledBy="t" onHide={hide}>
          <ModalHeader id="t" onHide={hide}>
            Title
          </ModalHeader>
          <div className="modal-body">
            <input aria-label="Name" data-autofocus />
          </div>
        </Modal>
      ) : null}
    </>
  );
}

/** What the browser does on Escape: a cancelable `cancel` event on the dialog. */
function pressEscape(dialog: HTMLElement): boolean {
  const event = new Event('cancel', { cancelable: true });
  act(() => {
    dialog.dispatchEvent(event);
  });
  return event.defaultPrevented;
}

describe('Modal', () => {
  it('is named by its title, focuses the marked field, and gives focus back when it closes', async () => {
    const user = userEvent.setup();
    render(<Dialogs dismissible />);
    const opener = screen.getByRole('button', { name: 'Open' });
    await user.click(opener);
    const dialog = screen.getByRole('dialog', { name: 'Title' });
    expect(screen.getByLabelText('Name')).toHaveFocus();
    expect(pressEscape(dialog)).toBe(true);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(opener).toHaveFocus();
  });

  it('closes from its close button and from a click on the backdrop', async () => {
    const user = userEvent.setup();
    render(<Dialogs dismissible />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await user.click(screen.getByRole('dialog'));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('without onHide, neither Escape nor the backdrop closes it, and it has no close button', async () => {
    const user = userEvent.setup();
    render(<Dialogs dismissible={false} />);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    const dialog = screen.getByRole('dialog', { name: 'Title' });
    // The key itself is refused, so the browser does not even start closing it.
    expect(fireEvent.keyDown(screen.getByLabelText('Name'), { key: 'Escape' })).toBe(false);
    expect(pressEscape(dialog)).toBe(true);
    await user.click(dialog);
    expect(screen.getByRole('dialog', { name: 'Title' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Close' })).not.toBeInTheDocument();
  });
});

describe('Toast', () => {
  it('asks to go after its delay, even when its parent renders again meanwhile', () => {
    jest.useFakeTimers();
    try {
      const onClose = jest.fn();
      const { rerender } = render(
        <Toast onClose={() => void onClose()} delay={3000}>
          Copied
        </Toast>,
      );
      expect(screen.getByRole('alert')).toHaveTextContent('Copied');
      act(() => jest.advanceTimersByTime(2000));
      rerender(
        <Toast onClose={() => void onClose()} delay={3000}>
          Copied
        </Toast>,
      );
      act(() => jest.advanceTimersByTime(999));
      expect(onClose).not.toHaveBeenCalled();
      act(() => jest.advanceTimersByTime(1));
      expect(onClose).toHaveBeenCalledTimes(1);
    } finally {
      jest.useRealTimers();
    }
  });
});
