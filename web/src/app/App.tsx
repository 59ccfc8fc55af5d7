export function App() {
  return (
    <header>
      <h1>
        <span aria-hidden="true">🌮</span> Taco Chat
      </h1>
    </header>
  );
}
